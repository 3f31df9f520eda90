internal import CFocalVips
internal import FocalRuntime
public import FocalCore

extension RenderedImage {
    /// The image with its colours changed by `change` (given and giving 8-bit RGB). Transparency
    /// is kept, as thumbor's filters keep an RGBA image's alpha: the colours change under it. A
    /// change that gives another size gives an opaque image (alpha flattened on white).
    /// - Throws: `ImagingError` when libvips cannot read or wrap the pixels.
    public func mappingPixels(_ change: (PixelBuffer) throws(ImagingError) -> PixelBuffer) throws(ImagingError) -> RenderedImage {
        guard hasAlpha else { return try RenderedImage(pixels: try change(try pixels())) }
        let size = self.size
        var rgba = try rgbaPixels()
        let count = rgba.count / 4
        var rgb = [UInt8](repeating: 0, count: count * 3)
        for i in 0..<count {
            rgb[3 * i] = rgba[4 * i]
            rgb[3 * i + 1] = rgba[4 * i + 1]
            rgb[3 * i + 2] = rgba[4 * i + 2]
        }
        guard let colours = PixelBuffer(width: size.width, height: size.height, bytes: rgb) else {
            throw ImagingError(.internalFailure, "RGBA pixels of \(size) do not match their size")
        }
        let changed = try change(colours)
        guard changed.size == size else { return try RenderedImage(pixels: changed) }
        changed.bytes.withUnsafeBufferPointer { new in
            for i in 0..<count {
                rgba[4 * i] = new[3 * i]
                rgba[4 * i + 1] = new[3 * i + 1]
                rgba[4 * i + 2] = new[3 * i + 2]
            }
        }
        return try RenderedImage(rgba: rgba, size: size)
    }

    /// The image with its transparency flattened on one colour (itself when it has none).
    /// - Throws: `ImagingError` when libvips fails.
    public func flattened(on colour: RGBColour) throws(ImagingError) -> RenderedImage {
        var out: OpaquePointer?
        let (status, text) = withErrorText {
            focal_vips_flatten_on(handle, Int32(colour.red), Int32(colour.green), Int32(colour.blue), &out, $0, $1)
        }
        guard status == FOCAL_VIPS_OK, let out else { throw ImagingError(.internalFailure, "cannot flatten", cause: text) }
        return RenderedImage(handle: out)
    }

    /// The image turned clockwise by `quarterTurns` quarter turns (any whole number; 4 is none).
    /// - Throws: `ImagingError` when libvips fails.
    public func rotated(quarterTurns: Int) throws(ImagingError) -> RenderedImage {
        let turns = ((quarterTurns % 4) + 4) % 4
        guard turns != 0 else { return self }
        var out: OpaquePointer?
        let (status, text) = withErrorText { focal_vips_rotate(handle, Int32(turns), &out, $0, $1) }
        guard status == FOCAL_VIPS_OK, let out else { throw ImagingError(.internalFailure, "cannot rotate", cause: text) }
        return RenderedImage(handle: out)
    }

    /// The image with every pixel's hue turned by `degrees` (-360 to 360) in CIE LCh, lightness,
    /// chroma and alpha kept.
    /// - Throws: `ImagingError` when libvips fails.
    public func hueTurned(by degrees: Double) throws(ImagingError) -> RenderedImage {
        var out: OpaquePointer?
        let (status, text) = withErrorText { focal_vips_hue(handle, degrees, &out, $0, $1) }
        guard status == FOCAL_VIPS_OK, let out else { throw ImagingError(.internalFailure, "cannot turn the hue", cause: text) }
        return RenderedImage(handle: out)
    }

    /// Wraps a copy of 8-bit RGBA pixels (rows of `size.width` × 4 bytes).
    /// - Throws: `ImagingError` when the byte count does not match or libvips cannot take them.
    public convenience init(rgba: [UInt8], size: PixelSize) throws(ImagingError) {
        try Vips.start()
        guard let w = Int32(exactly: size.width), let h = Int32(exactly: size.height) else {
            throw ImagingError(.internalFailure, "RGBA pixels of \(size) are out of range")
        }
        var out: OpaquePointer?
        let (status, text) = withErrorText { err, len in
            rgba.withUnsafeBufferPointer { focal_vips_from_rgba($0.baseAddress, $0.count, w, h, &out, err, len) }
        }
        guard status == FOCAL_VIPS_OK, let out else { throw ImagingError(.internalFailure, "cannot wrap RGBA pixels", cause: text) }
        self.init(handle: out)
    }
}

extension RenderedImage {
    /// The image convolved with `matrix` (`columns` weights a row, used as given), edges extended
    /// by copying; with `separable`, `matrix` is one row applied across, then down.
    /// - Throws: `ImagingError` when the matrix is not whole rows of 1 to 512, or libvips fails.
    public func convolved(_ matrix: [Double], columns: Int, separable: Bool = false) throws(ImagingError) -> RenderedImage {
        guard columns > 0, !matrix.isEmpty, matrix.count % columns == 0, let c = Int32(exactly: columns),
            let r = Int32(exactly: matrix.count / columns)
        else {
            throw ImagingError(.internalFailure, "a convolution matrix of \(matrix.count) weights is not rows of \(columns)")
        }
        var out: OpaquePointer?
        let (status, text) = withErrorText { err, len in
            matrix.withUnsafeBufferPointer { focal_vips_convolve(handle, $0.baseAddress, c, r, separable ? 1 : 0, &out, err, len) }
        }
        guard status == FOCAL_VIPS_OK, let out else { throw ImagingError(.internalFailure, "cannot convolve", cause: text) }
        return RenderedImage(handle: out)
    }
}

extension RenderedImage {
    /// The pixels as 8-bit RGBA (opaque where the image has no alpha), rows of `size.width` × 4.
    /// - Throws: `ImagingError` when libvips fails.
    public func rgbaPixels() throws(ImagingError) -> [UInt8] {
        var memory: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        let (status, text) = withErrorText { focal_vips_rgba_pixels(handle, &memory, &length, $0, $1) }
        guard status == FOCAL_VIPS_OK, let memory else { throw ImagingError(.internalFailure, "cannot read RGBA pixels", cause: text) }
        defer { focal_vips_free(memory) }
        return Array(UnsafeBufferPointer(start: memory, count: length))
    }
}
