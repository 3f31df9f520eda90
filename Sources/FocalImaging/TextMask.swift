internal import CFocalVips
internal import FocalCore
internal import FocalRuntime

/// Renders short text as an 8-bit coverage mask: labels on debug pictures, and `label(…)`.
package enum TextMask {
    /// The mask of `text` about `height` pixels tall: width, height and row-major coverage 0...255;
    /// nil when libvips cannot render text (no fonts installed).
    package static func render(_ text: String, height: Int) -> (width: Int, height: Int, coverage: [UInt8])? {
        try? render(text, family: nil, points: height > 4 ? height * 3 / 4 : 3)
    }

    /// The mask of `text` in the font `family` (nil: sans; fontconfig picks the nearest installed)
    /// at `points` (pixels at 72 dpi, 1...1000).
    /// - Throws: `ImagingError` when libvips cannot render it (no fonts installed, a bad size).
    package static func render(_ text: String, family: String?, points: Int) throws(ImagingError) -> (width: Int, height: Int, coverage: [UInt8]) {
        guard let size = Int32(exactly: points) else { throw ImagingError(.internalFailure, "the text size \(points) is out of range") }
        var mask: UnsafeMutablePointer<UInt8>? = nil
        var w: Int32 = 0, mh: Int32 = 0
        let (status, detail) = withErrorText { focal_vips_text_mask(text, family, size, &mask, &w, &mh, $0, $1) }
        guard status == FOCAL_VIPS_OK, let mask else { throw ImagingError(.internalFailure, "the text cannot be drawn", cause: detail) }
        defer { focal_vips_free(mask) }
        let count = Int(w) * Int(mh)
        return (Int(w), Int(mh), Array(UnsafeBufferPointer(start: mask, count: count)))
    }
}
