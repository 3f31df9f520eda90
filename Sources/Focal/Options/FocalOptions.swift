public import FocalCore
public import FocalDetection
public import FocalImaging

/// What one crop request asks for besides the image and the target.
public struct FocalOptions: Hashable, Sendable, Encodable {
    /// Scheme, padding, zoom, override, detection on or off.
    public var crop: CropOptions
    /// Detection speed/accuracy; default `.fast`.
    public var accuracy: Accuracy
    /// Output encoding; default nil: the input's own when it is JPEG, PNG, WebP, AVIF or GIF and
    /// holds the output, a TIFF's as PNG, else JPEG (an animation's own, GIF or WebP, when it
    /// animates: `animatedFormat(for:)`).
    /// Ignored when `automaticFormat` is set.
    public var format: ImageFormat?
    /// The automatic format (`format(auto)`): the best encoding among what the client accepts
    /// (`AcceptedFormats.best(for:)`: AVIF, WebP, else JPEG; a PNG input never goes out as PNG).
    /// Default nil: `format` decides. `focal serve` fills it in from the request's `Accept`.
    public var automaticFormat: AcceptedFormats?
    /// Quality, mirroring: how the output is encoded whatever its format; default
    /// `EncodeOptions.default`.
    public var encoding: EncodeOptions
    /// What a failure returns; default `.error`.
    public var fallback: Fallback
    /// Subjects hidden in the output (`redact(…)`); default nil: none.
    public var redaction: Redaction?
    /// Whether the output shows what Focal saw, each subject's box drawn on it
    /// (`draw_detections()`); default `false`.
    public var drawDetections = false
    /// thumbor's image filters applied to the output's pixels (`grayscale()`, `blur(4)`, ...), in
    /// the order given (a URL's order; the table's elsewhere); default none.
    public var effects: [AppliedEffect] = []
    /// thumbor's sizing filters: `no_upscale()`, `upscale()`, `proportion(F)`, `stretch()`;
    /// default none.
    public var sizing = Sizing()
    /// `fill(…)`: the output placed in the box a URL's `fit-in` asked for, the rest filled; default nil.
    public var fill: Fill?
    /// `max_bytes(N)`: a still JPEG, WebP or AVIF output re-encoded at the largest lower quality
    /// that fits N bytes; default nil.
    public var maxBytes: Int?
    /// `autojpg()`: a PNG kept from the input goes out as JPEG when it has no alpha; default false.
    public var autoJPEG = false
    /// `max_frames(N)`: an animation's first N frames only (1: its first frame, still); default nil: all.
    public var maxFrames: Int?
    /// imagor's `page(n)`: page or frame `n` (from 1) of a multi-page image or an animation, alone,
    /// as a still; default nil: the first page, or every frame.
    public var page: Int?
    /// imagor's `orient(angle)`: the image turned 90, 180 or 270 degrees anticlockwise before
    /// anything else (trim, crop, detection); default nil: as it is (upright by its EXIF orientation).
    public var orient: Int?
    /// thumbor's `trim`: the image's borders of one colour cut off first; default nil.
    public var trim: Trim?
    /// imagor's relative crop (`0.1x0.1:0.9x0.9/`): the part of the image (of what `trim` left)
    /// the crop happens in, in fractions of it (0 to 1); default nil. `crop.bounds` is its form in
    /// pixels.
    public var relativeCrop: Box?
    /// thumbor's `watermark(…)`: other images laid over the output, in order (thumbor and imagor
    /// draw each one a URL gives); default none.
    public var watermarks: [Watermark] = []
    /// The first of `watermarks`; setting it replaces them all.
    public var watermark: Watermark? {
        get { watermarks.first }
        set { watermarks = newValue.map { [$0] } ?? [] }
    }
    /// thumbor's `frame(…)`: the output framed by a nine-patch image; default nil.
    public var frame: NinePatch?
    /// imagor's `image(…)`: other images composited over the output, in order; default none.
    public var imageOverlays: [ImageOverlay] = []
    /// The first of `imageOverlays`; setting it replaces them all.
    public var imageOverlay: ImageOverlay? {
        get { imageOverlays.first }
        set { imageOverlays = newValue.map { [$0] } ?? [] }
    }
    /// Where each overlay's image is, by slot (`OverlaySlot.name`), as the door resolved its
    /// source (`overlays`: a file under the root, an allowed URL, an object); the pipeline reads
    /// each like any input. Not part of result keys: each overlay's content is.
    public var overlayInputs: [String: ImageInput] = [:]
    /// Where the watermark's image is (`overlayInputs["watermark"]`).
    public var watermarkInput: ImageInput? {
        get { overlayInputs["watermark"] }
        set { overlayInputs["watermark"] = newValue }
    }
    /// Where the frame's image is (`overlayInputs["frame"]`).
    public var frameInput: ImageInput? {
        get { overlayInputs["frame"] }
        set { overlayInputs["frame"] = newValue }
    }
    /// The revision of the saved crop applied as `crop.override`, when one was (set by the
    /// pipeline; part of result keys).
    var savedCropRevision: Int?
    /// Whether the store of saved crops could not say whether one applies (set by the pipeline:
    /// the result may miss a saved crop, so it is cached nowhere). Not part of result keys.
    var savedCropsUnknown = false

    /// Quality 1...100 on JPEG's scale (WebP the same, AVIF 15 less); `encoding.quality`.
    public var quality: Int {
        get { encoding.quality }
        set { encoding.quality = newValue }
    }
    /// Mirroring of the output; `encoding.flip`.
    public var flip: Flip {
        get { encoding.flip }
        set { encoding.flip = newValue }
    }

    private enum CodingKeys: String, CodingKey {
        case crop, accuracy, format, automaticFormat, fallback, savedCropRevision, redaction, drawDetections, effects, sizing, fill, maxBytes, autoJPEG, maxFrames, page, orient, trim, relativeCrop, watermark, watermarks, frame
        case imageOverlay = "image"
        case imageOverlays = "images"
    }

    /// The options as one flat object: the encode options' fields sit beside the others (result
    /// keys are this encoding, with sorted keys).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(crop, forKey: .crop)
        try container.encode(accuracy, forKey: .accuracy)
        try container.encodeIfPresent(format, forKey: .format)
        try container.encodeIfPresent(automaticFormat, forKey: .automaticFormat)
        try container.encode(fallback, forKey: .fallback)
        try container.encodeIfPresent(savedCropRevision, forKey: .savedCropRevision)
        try container.encodeIfPresent(redaction, forKey: .redaction)
        if drawDetections { try container.encode(drawDetections, forKey: .drawDetections) }
        if !effects.isEmpty { try container.encode(effects, forKey: .effects) }
        if !sizing.isDefault { try container.encode(sizing, forKey: .sizing) }
        try container.encodeIfPresent(fill, forKey: .fill)
        try container.encodeIfPresent(maxBytes, forKey: .maxBytes)
        if autoJPEG { try container.encode(autoJPEG, forKey: .autoJPEG) }
        try container.encodeIfPresent(maxFrames, forKey: .maxFrames)
        try container.encodeIfPresent(page, forKey: .page)
        try container.encodeIfPresent(orient, forKey: .orient)
        try container.encodeIfPresent(trim, forKey: .trim)
        try container.encodeIfPresent(relativeCrop, forKey: .relativeCrop)
        // One overlay of a kind keeps the key it always had.
        if watermarks.count > 1 { try container.encode(watermarks, forKey: .watermarks) } else { try container.encodeIfPresent(watermark, forKey: .watermark) }
        try container.encodeIfPresent(frame, forKey: .frame)
        if imageOverlays.count > 1 {
            try container.encode(imageOverlays, forKey: .imageOverlays)
        } else {
            try container.encodeIfPresent(imageOverlay, forKey: .imageOverlay)
        }
        try encoding.encode(to: encoder)
    }

    /// The size an output planned at `size` is delivered at: turned by a quarter `rotate`, then in
    /// `fill`'s box. A `frame`'s margins are its patch's, known once the patch is read.
    public func deliveredSize(of size: PixelSize) -> PixelSize {
        let effected = effects.outputSize(of: size)
        return fill?.canvas(for: effected) ?? effected
    }

    /// The defaults listed on each property.
    public static let `default` = FocalOptions()

    /// Creates options; every parameter defaults to the value documented on its property.
    public init(
        crop: CropOptions = .default, accuracy: Accuracy = .fast, format: ImageFormat? = nil, quality: Int = 85,
        fallback: Fallback = .error, flip: Flip = []
    ) {
        self.crop = crop
        self.accuracy = accuracy
        self.format = format
        self.encoding = EncodeOptions(quality: quality, flip: flip)
        self.fallback = fallback
    }

    /// Checks every option.
    /// - Throws: `PlanningError.invalidOption` naming the bad value.
    public func validate() throws(PlanningError) {
        try crop.validate()
        do {
            try encoding.validate()
        } catch {
            throw PlanningError.invalidOption(error.message)
        }
    }

    /// The format to encode an output of `size` from an input of `inputFormat` (as libvips names
    /// it) in.
    /// - Throws: `LimitExceeded` (`output.too_large`) when the format asked for does not hold the
    ///   size (an AVIF output of more than `ImageFormat.avifMaxPixels`; the automatic format picks
    ///   another instead).
    func outputFormat(for inputFormat: String, size: PixelSize) throws(LimitExceeded) -> ImageFormat {
        if let automaticFormat { return automaticFormat.best(for: size) }
        // The input's own format when it holds the output (an AVIF of more than 4 MP does not:
        // the output is then a JPEG, as from a format Focal does not keep).
        let kept = (ImageFormat(rawValue: inputFormat).flatMap { $0.descriptor.keptFromInput ? $0 : nil } ?? FormatDescriptor.keptAs[inputFormat])
            .flatMap { $0.descriptor.holds(size) ? $0 : nil }
        let chosen = format ?? kept ?? .jpeg
        let row = chosen.descriptor
        if !row.holds(size) {
            let allowed = [row.maxSide.map { "\($0) px a side" }, row.maxPixels.map { "\($0) pixels" }].compactMap { $0 }
            throw LimitExceeded(
                .outputTooLarge, limit: "\(chosen.rawValue)Max", allowed: allowed.joined(separator: ", ") + " for \(chosen.rawValue.uppercased())",
                actual: "\(size)")
        }
        return chosen
    }

    /// The format an animation's output is encoded in, or nil when the request asks for a still
    /// format (the output is then the first frame): the automatic format's WebP when the client
    /// takes it, else GIF; a format asked for when it animates; else the input's own (GIF, WebP).
    public func animatedFormat(for inputFormat: String) -> ImageFormat? {
        if let automaticFormat { return automaticFormat.contains(.webp) ? .webp : .gif }
        if let format { return format.descriptor.animates ? format : nil }
        return ImageFormat(rawValue: inputFormat).flatMap { $0.descriptor.animates ? $0 : nil }
    }
}
