/// Runs `body` with a zeroed C buffer for error text (pointer, capacity); returns its result and
/// the text it left. Shared by the C and C++ shims' wrappers.
package func withErrorText<T>(_ body: (UnsafeMutablePointer<CChar>, Int) -> T) -> (T, String) {
    let capacity = 1024
    let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
    defer { buffer.deallocate() }
    buffer.initialize(repeating: 0, count: capacity)
    let result = body(buffer, capacity)
    return (result, String(cString: buffer))
}
