#if canImport(Glibc)
import Glibc
#endif

/// Gives freed heap memory back to the system (glibc's `malloc_trim`). glibc keeps what a burst
/// of requests freed (bodies, downloads, decodes) in its arenas; the service trims once a burst
/// is over, so resident memory returns near its level before the burst.
enum MemoryTrim {
    private typealias Trim = @convention(c) (Int) -> Int32

    /// Trims every arena; false where `malloc_trim` is not available.
    @discardableResult
    static func trim() -> Bool {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return false }  // <malloc.h> is not in Swift's Glibc module
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        return true
        #else
        return false
        #endif
    }
}
