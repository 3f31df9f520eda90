extension PixelSize {
    /// This size scaled so that its long side is `longSide`, never enlarged unless `enlarge`.
    /// Each side is at least 1; an empty size gives 1x1.
    public func fitting(longSide: Int, enlarge: Bool = false) -> PixelSize {
        let long = max(width, height, 1)
        let fit = Double(longSide) / Double(long)
        let scale = enlarge ? fit : min(1, fit)
        let bound = 1...max(1, longSide, long)
        return PixelSize(
            width: Int(rounding: Double(width) * scale, within: bound), height: Int(rounding: Double(height) * scale, within: bound))
    }
}
