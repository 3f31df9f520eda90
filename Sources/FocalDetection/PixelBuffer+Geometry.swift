import FocalCore

extension PixelBuffer {
    /// Width, height and row stride as C ints, checked: a buffer too large for them is an error,
    /// never a trap.
    func cGeometry() throws(DetectionError) -> (width: Int32, height: Int32, stride: Int32) {
        let (stride, overflow) = width.multipliedReportingOverflow(by: 3)
        guard !overflow, let w = Int32(exactly: width), let h = Int32(exactly: height), let s = Int32(exactly: stride) else {
            throw DetectionError(.detectionFailed, "a \(size) pixel buffer is too large to detect in")
        }
        return (w, h, s)
    }
}
