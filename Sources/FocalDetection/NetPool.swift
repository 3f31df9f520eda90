internal import CFocalOpenCV
import FocalCore
import Synchronization

/// One loaded OpenCV network; freed with it.
final class LoadedNet: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { focal_cv_net_free(pointer) }
}

/// Networks of one model, loaded on demand, one per concurrent caller (a `cv::dnn::Net` must
/// not run two inferences at once).
final class NetPool: Sendable {
    private let load: @Sendable () throws(DetectionError) -> LoadedNet
    private let idle = Mutex<[LoadedNet]>([])

    init(load: @escaping @Sendable () throws(DetectionError) -> LoadedNet) { self.load = load }

    /// Runs `body` with a network nobody else is using.
    func with<T>(_ body: (OpaquePointer) throws(DetectionError) -> T) throws(DetectionError) -> T {
        let reused = idle.withLock { $0.popLast() }
        let net: LoadedNet
        if let reused { net = reused } else { net = try load() }
        defer { idle.withLock { $0.append(net) } }
        return try body(net.pointer)
    }
}
