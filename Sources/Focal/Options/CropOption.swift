public import FocalCore
public import FocalDetection
public import FocalImaging

/// One crop option, declared once: its name at every door, the values it takes, its default and
/// meaning, and the one parser and printer that every door uses.
///
/// The thumbor URL grammar (`filters:NAME(VALUE)`), the JSON API (`"options": {"NAME": VALUE}`),
/// the command line (`--NAME VALUE`) and the `<focal-img>` element (`NAME="VALUE"`) all read
/// `CropOption.all`, so each takes the same spellings and prints the canonical one.
public struct CropOption: Sendable {
    /// The option's name: its JSON key, its command-line flag (`--name`) and its element attribute.
    public let name: String
    /// Its thumbor URL filter, `filter(VALUE)`; nil when the URL says it another way.
    public let filter: String?
    /// How a URL gives it when there is no filter (`smart/`), for the documentation.
    public let urlForm: String?
    /// The values it takes, as a person writes them.
    public let values: String
    /// The default, as documented.
    public let defaultText: String
    /// One line on what it does.
    public let summary: String
    /// Spellings it accepts, the canonical one first (tests try each at every door).
    public let examples: [String]
    /// The value `<focal-img>` and its markup helpers ask for when the attribute is absent (the
    /// automatic format), or nil: the option is left out of their URLs.
    public let elementDefault: String?
    private let parse: @Sendable (String, inout FocalOptions) throws(PlanningError) -> Void
    private let print: @Sendable (FocalOptions) -> String?

    /// Reads `text` into `options`.
    /// - Throws: `PlanningError.invalidOption` naming the option and the values it takes.
    public func apply(_ text: String, to options: inout FocalOptions) throws(PlanningError) {
        guard text.utf8.count <= Self.maxValueLength else {
            throw PlanningError.invalidOption("\(name) is longer than \(Self.maxValueLength) characters")
        }
        try parse(text, &options)
    }

    /// The longest value an option takes: a 15 × 15 `convolution` of weights down to -1000 is
    /// 1,361 characters (each option's parser bounds what it reads within it).
    public static let maxValueLength = 2048

    /// The canonical spelling of this option's value in `options`, or nil when it is not set.
    public func text(of options: FocalOptions) -> String? { print(options) }

    /// The option with this name (its JSON key, flag or attribute), or nil.
    public static func named(_ name: String) -> CropOption? { all.first { $0.name == name } }

    /// The option read by this URL filter, or nil.
    public static func filtered(_ filter: String) -> CropOption? { all.first { $0.filter == filter } }

    /// Every option's canonical text in `options`, by name (options that are not set are left out).
    public static func canonical(_ options: FocalOptions) -> [(name: String, value: String)] {
        all.compactMap { option in option.text(of: options).map { (option.name, $0) } }
    }

    /// The format option's values, from the formats' rows: "`jpeg` (or `jpg`), `png`, ..., `auto`".
    static var formatValues: String {
        let each = FormatDescriptor.all.map { row in
            "`\(row.names[0])`" + (row.names.count > 1 ? " (or " + row.names.dropFirst().map { "`\($0)`" }.joined(separator: ", ") + ")" : "")
        }
        return (each + ["`auto`"]).joined(separator: ", ")
    }

    /// The input formats an output keeps when no format is asked for: "JPEG, PNG, WebP, AVIF or GIF".
    static var keptFormats: String {
        let names = FormatDescriptor.all.filter(\.keptFromInput).map { $0.format == .webp ? "WebP" : $0.format.rawValue.uppercased() }
        return names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "") : names.joined()
    }

    /// The table: every crop option of every door, then every effect (`Effects.all`).
    public static let all: [CropOption] = options + Effects.all.map(CropOption.init(effect:))

    /// The row of one effect: its URL filter, its name with `-` for `_` at the other doors.
    init(effect: any Effect.Type) {
        self.init(
            name: String(effect.name.map { $0 == "_" ? "-" : $0 }), filter: effect.name, values: effect.values, defaultText: "none",
            summary: effect.summary, examples: effect.examples,
            parse: { text, options throws(PlanningError) in options.effects.set(try effect.init(arguments: text)) },
            print: { options in options.effects.first { $0.name == effect.name }?.effect.arguments })
    }

    /// The crop options proper.
    static let options: [CropOption] = [
        CropOption(
            name: "scheme", filter: "scheme", values: "`all`, `largest`, `smallest`", defaultText: "`all`",
            summary: "which subjects of the chosen kind to frame: all of them, or only the largest or the smallest",
            examples: ["largest", "smallest", "all"],
            parse: { text, options throws(PlanningError) in
                guard let scheme = BoundingScheme(rawValue: text.trimmingSpaces.lowercased()) else {
                    throw PlanningError.invalidOption("scheme '\(text)' must be all, largest or smallest")
                }
                options.crop.scheme = scheme
            },
            print: { $0.crop.scheme.rawValue }),
        CropOption(
            name: "padding", filter: "padding", values: "a fraction of each subject's size (`0.1`) or pixels (`24px`)",
            defaultText: "`0.1`", summary: "room around each subject",
            examples: ["0.2", "24px", "0.05"],
            parse: { text, options throws(PlanningError) in options.crop.padding = try Padding(parsing: text) },
            print: { $0.crop.padding.description }),
        CropOption(
            name: "headroom", filter: "headroom", values: "a fraction of a face's height, 0 to 2", defaultText: "`0.25`",
            summary: "extra room above each face for the forehead and hair that face detectors leave out",
            examples: ["0.5", "0", "1"],
            parse: { text, options throws(PlanningError) in
                guard let value = Double(canonicalNumber: text.trimmingSpaces), value >= 0, value <= 2 else {
                    throw PlanningError.invalidOption("headroom '\(text)' must be a fraction of a face's height from 0 to 2, e.g. 0.5")
                }
                options.crop.faceHeadroom = value
            },
            print: { $0.crop.faceHeadroom.canonicalText }),
        CropOption(
            name: "zoom", filter: "zoom", values: "`fill`, or a fraction F in (0, 1] (also written `subject:F`)", defaultText: "`fill`",
            summary: "`fill` takes the largest crop; F zooms in until the padded subjects span F of the frame, never below the output size",
            examples: ["0.6", "subject:0.6", "fill"],
            parse: { text, options throws(PlanningError) in options.crop.zoom = try Zoom(parsing: text) },
            print: { $0.crop.zoom.description }),
        CropOption(
            name: "focus", filter: "focal",
            values: "a point `X,Y` or a region `LxT:RxB`, in pixels of the upright image, or in fractions of it (every value at most 1, "
                + "one with a decimal point: `0.5,0.3`, `0.25x0.1:0.6x0.5`) (in a URL, several `focal()` make one region)",
            defaultText: "none", summary: "frame this point or region instead of detecting subjects; fractions apply to any size of the image, so a point chosen on a thumbnail fits the original",
            examples: ["320,180", "100x50:420x290", "12.5,99.25", "0.25x0.1:0.6x0.5", "0.5,0.3"],
            parse: { text, options throws(PlanningError) in options.crop.override = try ManualOverride(parsingFocus: text) },
            print: { $0.crop.override?.focusText }),
        CropOption(
            name: "detect", filter: nil, urlForm: "`smart/`", values: "`on` or `off` (also `true`/`false`, `1`/`0`, `yes`/`no`)",
            defaultText: "`on` (in a URL: on with `smart/`)",
            summary: "`off` gives a plain crop aligned at the centre, with no detection and no saved crop",
            examples: ["off", "on", "false"],
            parse: { text, options throws(PlanningError) in options.crop.detect = try Self.bool(text, name: "detect") },
            print: { $0.crop.detect ? "on" : "off" }),
        CropOption(
            name: "accuracy", filter: "accuracy", values: "`fast` or `accurate`", defaultText: "`fast`",
            summary: "`accurate` looks at a 1280 px copy instead of 512 px: it finds the small faces of a group photo, at about 3× the cost of a crop (2.8× over the 40 development photos at 400×400)",
            examples: ["accurate", "fast"],
            parse: { text, options throws(PlanningError) in
                guard let accuracy = Accuracy(rawValue: text.trimmingSpaces.lowercased()) else {
                    throw PlanningError.invalidOption("accuracy '\(text)' must be fast or accurate")
                }
                options.accuracy = accuracy
            },
            print: { $0.accuracy.rawValue }),
        CropOption(
            name: "format", filter: "format", values: Self.formatValues,
            defaultText: "the input's own when it is \(Self.keptFormats) and holds the output (AVIF 4 MP), a TIFF's `png`, else `jpeg`; an animated GIF or WebP stays animated, in its own format",
            summary: "the output's encoding; `auto` is the best the client accepts (AVIF, WebP, else JPEG, from the request's `Accept`; "
                + "on the command line AVIF where it fits, else WebP; an animation: WebP, else GIF); a still format asked of an animation gives its first frame",
            examples: ["webp", "jpg", "png", "avif", "auto"], elementDefault: "auto",
            parse: { text, options throws(PlanningError) in
                let name = text.trimmingSpaces.lowercased()
                if name == "auto" {
                    options.format = nil
                    options.automaticFormat = []
                    return
                }
                guard let format = ImageFormat(name: name) else {
                    let names = FormatDescriptor.all.map { $0.names[0] }.joined(separator: ", ")
                    throw PlanningError.invalidOption("format '\(text)' is not one Focal writes: \(names) or auto")
                }
                guard FormatDescriptor.writable.contains(format) else {
                    throw PlanningError.invalidOption("format '\(text)': this server's libvips cannot write \(format.rawValue.uppercased()) (no encoder for it); /v1/config lists the formats it writes")
                }
                options.format = format
                options.automaticFormat = nil
            },
            print: { $0.automaticFormat != nil ? "auto" : $0.format?.rawValue }),
        CropOption(
            name: "quality", filter: "quality", values: "a whole number from 1 to 100 (one outside is brought into it)", defaultText: "`85`",
            summary: "JPEG and WebP quality; AVIF takes 15 less on its own scale (85 gives 70), about as faithful as WebP at 85 in fewer bytes",
            examples: ["70", "100", "1"],
            parse: { text, options throws(PlanningError) in
                let digits = text.trimmingSpaces
                guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ ("0"..."9").contains($0) }), let quality = Int(digits) else {
                    throw PlanningError.invalidOption("quality '\(text)' must be a whole number from 1 to 100")
                }
                // thumbor takes any: 0 is the lowest quality, past 100 the highest.
                options.quality = min(max(quality, EncodeOptions.qualities.lowerBound), EncodeOptions.qualities.upperBound)
            },
            print: { String($0.quality) }),
        CropOption(
            name: "redact", filter: "redact",
            values: "`blur`, `pixelate` or a colour (`000000`), then optionally a strength 1-100, kinds joined by `+` (`face`, `person`, `cat`, "
                + "`dog`, `pet`, `people`, or a class of the object detector such as `car` or `bicycle`; plurals too, as in `kinds`) and `oval`",
            defaultText: "none",
            summary: "hides faces (or the kinds named) in the output, found by the thorough detection: blurred (strength: radius in % "
                + "of the face, default 25), pixelated (blocks across, default 5, each at least 8 px or a third of a small face) or filled; `oval` (a URL's `redact_oval(…)`) hides ovals",
            examples: ["pixelate", "blur,40", "ff00aa", "pixelate,10,face+person", "blur,oval"],
            parse: { text, options throws(PlanningError) in options.redaction = try Redaction(text: text) },
            print: { $0.redaction?.text }),
        CropOption(
            name: "kinds", filter: "kinds",
            values: "kinds joined by `+`, the preferred first (`face`, `pet`, `cat`, `dog`, `person`, `people`, `saliency`, or any of the object "
                + "detector's 80 classes: `truck`, `bicycle`, `horse`, `traffic_light`…; plurals too, as in `redact`), each with a weight "
                + "(`face:2+dog:1`) or none, or kinds to leave out (`no-person`)",
            defaultText: "faces, then pets, then people, then saliency (the other classes count only when named)",
            summary: "which kinds of subject a crop is built around, in which order: `face` only faces (none found: a centre crop), "
                + "`pet+face` pets before faces, `face+saliency` faces, else the salient region, `truck` the trucks, `no-person` never people; "
                + "with weights every kind named counts, and a crop that cannot keep them all keeps the most weight (size × confidence × weight)",
            examples: ["face", "pet+face", "no-person", "cats+faces+saliency", "truck", "bicycle+person", "face:2+dog", "no-car"],
            parse: { text, options throws(PlanningError) in options.crop.kinds = try SubjectPreference(text: text) },
            print: { $0.crop.kinds?.text }),
        CropOption(
            name: "placement", filter: "placement", values: "`center`, `thirds`, or `X,Y` in fractions of the crop (0 to 1)",
            defaultText: "`center`",
            summary: "where the kept subjects sit when the crop holds them with room to spare: centred, on the rule of thirds (their centre "
                + "on the third line on their side of the image, a face's eyes on the upper third), or at a point of the crop; never at "
                + "the cost of a subject (each stops where they stay whole); the plan says what it did",
            examples: ["center", "thirds", "0.33,0.5", "centre"],
            parse: { text, options throws(PlanningError) in
                let placement = try Placement(text: text)
                options.crop.placement = placement == .center ? nil : placement
            },
            print: { $0.crop.placement?.description ?? "center" }),
        CropOption(
            name: "tight", filter: "tight", values: "`width` (in a URL `tight()` too) or `height`", defaultText: "off: the size's aspect",
            summary: "a frame whose aspect follows the subjects (imgix's `facearea`): the padded box of the kept subjects, output at the "
                + "size's width (or height), the other side from the box (`300x0/filters:tight()`); bounded by the image and the output "
                + "limits; with no subject, the size as asked",
            examples: ["width", "height"],
            parse: { text, options throws(PlanningError) in options.crop.tight = try TightSide(text: text) },
            print: { $0.crop.tight?.rawValue }),
        CropOption(
            name: "draw-detections", filter: "draw_detections", values: "`on` or `off`; in a URL, `draw_detections()` is on",
            defaultText: "`off`",
            summary: "draws what Focal saw on the output: each subject's box in its kind's colour, as the page draws them (faces green, "
                + "cats amber, dogs pink, people blue, saliency yellow), thicker for those the crop was built around",
            examples: ["on", "off", "true"],
            parse: { text, options throws(PlanningError) in
                options.drawDetections = text.trimmingSpaces.isEmpty ? true : try bool(text, name: "draw-detections")
            },
            print: { $0.drawDetections ? "on" : "off" }),
        CropOption(
            name: "no-upscale", filter: "no_upscale", values: "no value (in a URL `no_upscale()`; elsewhere `on`)", defaultText: "off",
            summary: "never larger than the image: each side of the size asked is capped at the image's (so 400x400 of a 300x200 image is 300x200)",
            examples: ["", "on"],
            parse: { text, options throws(PlanningError) in options.sizing.noUpscale = try switchOn(text, name: "no-upscale") },
            print: { $0.sizing.noUpscale ? "" : nil }),
        CropOption(
            name: "upscale", filter: "upscale", values: "no value (in a URL `upscale()`; elsewhere `on`)", defaultText: "off",
            summary: "with a URL's `fit-in`: an image smaller than the box is enlarged to fit it (else `fit-in` never enlarges)",
            examples: ["", "on"],
            parse: { text, options throws(PlanningError) in options.sizing.upscale = try switchOn(text, name: "upscale") },
            print: { $0.sizing.upscale ? "" : nil }),
        CropOption(
            name: "proportion", filter: "proportion", values: "a fraction F, 0 < F ≤ 1", defaultText: "1",
            summary: "the output scaled by F (an aspect's crop too): `proportion(0.5)` halves each side",
            examples: ["0.5", "1", "0.25"],
            parse: { text, options throws(PlanningError) in
                guard let value = Double(canonicalNumber: text.trimmingSpaces), value > 0, value <= 1 else {
                    throw PlanningError.invalidOption("proportion '\(text)' must be a fraction over 0 and at most 1, e.g. 0.5")
                }
                options.sizing.proportion = value
            },
            print: { $0.sizing.proportion?.canonicalText }),
        CropOption(
            name: "stretch", filter: "stretch", values: "no value (in a URL `stretch()`; elsewhere `on`)", defaultText: "off",
            summary: "no crop: the whole image (or a URL's `AxB:CxD` part) resized to exactly the size asked, its aspect not kept; no detection",
            examples: ["", "on"],
            parse: { text, options throws(PlanningError) in options.sizing.stretch = try switchOn(text, name: "stretch") },
            print: { $0.sizing.stretch ? "" : nil }),
        CropOption(
            name: "fill", filter: "fill", values: Fill.values, defaultText: "none",
            summary: "with a URL's `fit-in W×H`: the image in the middle of a W×H output, the rest filled (no effect without a box to fill)",
            examples: ["ff0000", "blur", "auto", "transparent", "none", "white,true"],
            parse: { text, options throws(PlanningError) in
                let box = options.fill?.box ?? (nil, nil)
                var fill = try Fill(text: text)
                fill.box = box
                options.fill = fill
            },
            print: { $0.fill?.text }),
        CropOption(
            name: "lossless", filter: "lossless", values: "no value (in a URL `lossless()`; elsewhere `on`)", defaultText: "off",
            summary: "WebP and AVIF encoded losslessly (imagor's `lossless()`; larger files, every pixel kept); other formats unchanged",
            examples: ["", "on"],
            parse: { text, options throws(PlanningError) in options.encoding.lossless = try switchOn(text, name: "lossless") },
            print: { $0.encoding.lossless ? "" : nil }),
        CropOption(
            name: "max-bytes", filter: "max_bytes", values: "bytes, 1 to 1000000000", defaultText: "none",
            summary: "a still JPEG, WebP or AVIF larger than this is encoded again at the largest lower quality that fits (quality 1 when none does)",
            examples: ["20000", "5000"],
            parse: { text, options throws(PlanningError) in
                options.maxBytes = try wholeNumber(text, in: 1...1_000_000_000, of: "bytes", name: "max-bytes")
            },
            print: { $0.maxBytes.map(String.init) }),
        CropOption(
            name: "autojpg", filter: "autojpg", values: "no value, or `true`/`false` (in a URL `autojpg()`; elsewhere `on`)", defaultText: "off",
            summary: "a PNG input without transparency goes out as JPEG (when no format is asked for)",
            examples: ["", "on", "true"],
            parse: { text, options throws(PlanningError) in
                let value = text.trimmingSpaces.lowercased()
                options.autoJPEG = value == "false" || value == "0" || value == "off" ? false : try switchOn(text, name: "autojpg")
            },
            print: { $0.autoJPEG ? "" : nil }),
        CropOption(
            name: "first-frames", filter: "max_frames", values: "a whole number of frames, 1 to 100000", defaultText: "every frame",
            summary: "an animation keeps its first N frames (imagor's `max_frames(N)`; 1 gives its first frame, still); not `focal serve --max-frames`, the frames of one plan",
            examples: ["10", "1"],
            parse: { text, options throws(PlanningError) in
                options.maxFrames = try wholeNumber(text, in: 1...100_000, of: "frames", name: "first-frames (max_frames in a URL)")
            },
            print: { $0.maxFrames.map(String.init) }),
        CropOption(
            name: "page", filter: "page", values: "a whole number from 1 (a GIF's or WebP's frame within the animation limits: 400 frames by default)", defaultText: "the first page; every frame of an animation",
            summary: "page N of a multi-page TIFF or HEIF, or frame N of an animation, alone and still (imagor's `page(N)`): a page the image does not have is a 400",
            examples: ["1"],
            parse: { text, options throws(PlanningError) in
                options.page = try wholeNumber(text, in: 1...100_000, of: "pages", name: "page")
            },
            print: { $0.page.map(String.init) }),
        CropOption(
            name: "orient", filter: "orient", values: "`0`, `90`, `180` or `270` degrees", defaultText: "`0`: as the image is (upright by its EXIF orientation)",
            summary: "turns the image anticlockwise before anything else, as imagor's `orient(angle)`: trim, crop, detection and the output's size see the turned image",
            examples: ["90", "270"],
            parse: { text, options throws(PlanningError) in
                let degrees = try wholeNumber(text, in: 0...270, of: "degrees", name: "orient")
                guard degrees % 90 == 0 else { throw PlanningError.invalidOption("orient '\(text)' must be 0, 90, 180 or 270 degrees") }
                options.orient = degrees == 0 ? nil : degrees
            },
            print: { $0.orient.map(String.init) }),
        CropOption(
            name: "watermark", filter: "watermark", values: Watermark.values, defaultText: "none",
            summary: "lays another image over the output, as thumbor's `watermark(…)`: `watermark(logo.png,-10,-10,30)` a logo 10 px from the bottom-right corner, 30 % transparent",
            examples: ["logo.png,-10,-10,30", "logo.png,center,repeat,50,20,none", "'a,b.png',10p,10p,0,25,25"],
            parse: { text, options throws(PlanningError) in options.watermark = try Watermark(text: text) },
            print: { $0.watermark?.text }),
        CropOption(
            name: "overlay", filter: "image", values: ImageOverlay.values, defaultText: "none",
            summary:
                "composites another image over the output, as imagor's `image(…)`: `image(badge.png,right-10,top-10)` a badge 10 px in from the top-right corner; "
                + "`image(paper.png,0,0,40,multiply)` a texture multiplied in at 40 % transparency",
            examples: ["badge.png,right-10,top-10", "paper.png,0,0,40,multiply", "logo.png,center,0.9,0,screen"],
            parse: { text, options throws(PlanningError) in options.imageOverlay = try ImageOverlay(text: text) },
            print: { $0.imageOverlay?.text }),
        CropOption(
            name: "frame", filter: "frame", values: NinePatch.values, defaultText: "none",
            summary: "frames the output with a nine-patch image, as thumbor's `frame(…)`: the output grows by the patch's margins and the patch, stretched, is laid over it (after the watermark and `fill`)",
            examples: ["frame.9.png", "frames/gold.png"],
            parse: { text, options throws(PlanningError) in options.frame = try NinePatch(text: text) },
            print: { $0.frame?.text }),
        CropOption(
            name: "trim", filter: nil, urlForm: "`trim/`, `trim:bottom-right:10/` (before the crop)",
            values: "`top-left` or `bottom-right` (the corner whose colour is the border), then optionally `:` and a tolerance 0-442",
            defaultText: "none",
            summary: "cuts off the image's borders of that corner's colour first, as thumbor's `trim`; a URL's `AxB:CxD` is then a part of what is left",
            examples: ["top-left", "bottom-right:10", "on"],
            parse: { text, options throws(PlanningError) in options.trim = try Trim(text: text) },
            print: { $0.trim?.text }),
    ]

    /// A whole number in `range` (digits only), or an error naming the option and the range.
    static func wholeNumber(_ text: String, in range: ClosedRange<Int>, of unit: String, name: String) throws(PlanningError) -> Int {
        let digits = text.trimmingSpaces
        guard digits.count <= 10, digits.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(digits), range.contains(value) else {
            throw PlanningError.invalidOption("\(name) '\(text)' must be a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A row that is only switched on: empty (a URL's `name()`), `on` or `true`.
    static func switchOn(_ text: String, name: String) throws(PlanningError) -> Bool {
        switch text.trimmingSpaces.lowercased() {
        case "", "on", "true", "1": return true
        default: throw PlanningError.invalidOption("\(name) takes no value (or on), not '\(text)'")
        }
    }

    /// `on`/`off`, `true`/`false`, `1`/`0`, `yes`/`no`.
    static func bool(_ text: String, name: String) throws(PlanningError) -> Bool {
        switch text.trimmingSpaces.lowercased() {
        case "on", "true", "1", "yes": return true
        case "off", "false", "0", "no": return false
        default: throw PlanningError.invalidOption("\(name) '\(text)' must be on or off")
        }
    }

    private init(
        name: String, filter: String?, urlForm: String? = nil, values: String, defaultText: String, summary: String, examples: [String],
        elementDefault: String? = nil, parse: @escaping @Sendable (String, inout FocalOptions) throws(PlanningError) -> Void,
        print: @escaping @Sendable (FocalOptions) -> String?
    ) {
        self.name = name
        self.filter = filter
        self.urlForm = urlForm
        self.values = values
        self.defaultText = defaultText
        self.summary = summary
        self.examples = examples
        self.elementDefault = elementDefault
        self.parse = parse
        self.print = print
    }
}
