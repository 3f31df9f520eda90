public import FocalCore

extension PixelSize {
    /// This size scaled so that its long side is `longSide`, never enlarged unless `enlarge`.
    public func fitting(longSide: Int, enlarge: Bool = false) -> PixelSize {
        let fit = Double(longSide) / Double(max(width, height))
        let scale = enlarge ? fit : min(1, fit)
        return PixelSize(width: max(1, Int((Double(width) * scale).rounded())), height: max(1, Int((Double(height) * scale).rounded())))
    }
}
