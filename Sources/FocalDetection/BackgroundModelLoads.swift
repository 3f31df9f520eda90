/// The models that load on threads of their own (`FaceDetector.prepare(imageSize:)`,
/// `ObjectDetector.prepare()`) while an image decodes.
///
/// A process must not exit while one is inside OpenVINO: exit runs the runtime's static
/// destructors under it. A command-line program calls `wait()` before it exits.
public enum BackgroundModelLoads {
    /// Blocks until every background load started so far has finished (each takes at most what
    /// compiling its model takes: tens of milliseconds from the cache, about a second without).
    public static func wait() { CompiledNet.waitForBackgroundLoads() }
}
