internal import CFocalVips
internal import FocalRuntime

/// Renders short text as an 8-bit coverage mask, for drawing labels on debug pictures.
package enum TextMask {
    /// The mask of `text` about `height` pixels tall: width, height and row-major coverage 0...255;
    /// nil when libvips cannot render text (no fonts installed).
    package static func render(_ text: String, height: Int) -> (width: Int, height: Int, coverage: [UInt8])? {
        guard let h = Int32(exactly: height) else { return nil }
        var mask: UnsafeMutablePointer<UInt8>? = nil
        var w: Int32 = 0, mh: Int32 = 0
        let (status, _) = withErrorText { focal_vips_text_mask(text, h, &mask, &w, &mh, $0, $1) }
        guard status == FOCAL_VIPS_OK, let mask else { return nil }
        defer { focal_vips_free(mask) }
        let count = Int(w) * Int(mh)
        return (Int(w), Int(mh), Array(UnsafeBufferPointer(start: mask, count: count)))
    }
}
