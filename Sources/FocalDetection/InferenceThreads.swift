internal import CFocalOpenCV

/// How many threads one detector inference may use, for the whole process (OpenCV keeps one
/// setting).
public enum InferenceThreads {
    /// Sets the threads of every inference from now on.
    /// - Parameter count: Threads per inference; `nil` (or less than 1) restores OpenCV's default,
    ///   all cores. With as many inferences running at once as there are cores (a server, a batch),
    ///   1 gives the most per second: threads that split one network wait on each other, and
    ///   measured here they cost a third more CPU for YOLO.
    public static func set(_ count: Int?) {
        guard let count, count > 0 else {
            focal_cv_set_threads(0)
            return
        }
        focal_cv_set_threads(Int32(clamping: count))
    }
}
