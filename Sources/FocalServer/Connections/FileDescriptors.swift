#if canImport(Glibc)
import Glibc
#endif

/// The file descriptors this process may open.
enum FileDescriptors {
    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (as servers do), and returns the soft
    /// limit in force afterwards; 1024 when it cannot be read.
    static func raiseSoftLimit() -> Int {
        #if canImport(Glibc)
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)  // RLIM_INFINITY is the largest value: no cap from it
        #else
        return 1024
        #endif
    }
}
