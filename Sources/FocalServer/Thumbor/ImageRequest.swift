public import Focal
import FocalImaging
import Foundation

/// What a thumbor-style URL asks Focal for: the target rule, the crop and encoding options.
///
/// - `smart` is Focal's subject-aware plan (faces, pets, people, saliency, or a saved override);
///   without it the crop is aligned as `left|center|right` and `top|middle|bottom` say (centre by
///   default), as in thumbor.
/// - `AxB:CxD` is a manual crop in source pixels made first: the rest happens inside it.
/// - `W` and `H`: both given, the exact output size; one given, the other follows the source's
///   aspect; neither, the source's own size. `fit-in` scales the whole image to fit the box.
/// - Filters: every crop option with a URL filter in `CropOption.all` (`focal()`, several of which
///   make one region, `padding()`, `zoom()`, `format()`, ...), `aspect(A:B)`, and `strip_icc()`,
///   `strip_exif()` (Focal always strips). Any other filter is refused.
public struct ImageRequest: Sendable {
    /// The parsed URL.
    public let url: ThumborURL
    /// How the target follows from the source's size.
    public let rule: TargetRule
    /// Crop, detection, encoding options.
    public var options: FocalOptions
    /// Whether a `format()` filter chose the format (then `--auto-webp` leaves it alone).
    public let formatChosen: Bool
    /// `max_age(N)`: the answer's browser cache lifetime in seconds, instead of the server's.
    public private(set) var maxAge: Int?
    /// `expire(MS)`: the Unix time in milliseconds from which the URL answers 410.
    public private(set) var expires: Int64?
    /// `attachment(NAME)`: the answer is a download; the name, or nil for the image's own (the
    /// inner optional), or nil when not asked.
    public private(set) var attachment: String??
    /// The path (after `unsafe/`) that asks for the same image in the one spelling Focal renders
    /// and caches: each value as the option table prints it, numbers without leading zeros, a
    /// filter given twice written once when the later one wins, the image part canonical. An
    /// unsafe URL written otherwise is answered with a permanent redirect to it.
    public private(set) var canonicalPath: String

    /// Builds the request.
    /// - Throws: `ServerError` (`request.invalid`) for a filter that is unknown or malformed, or
    ///   options that contradict each other.
    public init(_ url: ThumborURL) throws(ServerError) {
        self.url = url
        var options = FocalOptions()
        options.flip = url.flip
        // thumbor's debug/ draws its focal points; Focal draws every subject it saw.
        options.drawDetections = url.debug
        // imagor's relative crop: fractions of the image, resolved once it is open.
        options.relativeCrop = url.relativeCrop
        if let trim = url.trim {
            do { options.trim = try Trim(text: trim) } catch { throw ServerError.invalid(error.publicMessage) }
        }
        var aspect: (Int, Int)?
        var focus: Box?
        var relativeFocus: Bool?
        var formatChosen = false
        // Several focal regions (focal() filters, extract_focal()) make one; a point is a region
        // of no size. All in pixels, or all in fractions of the image.
        func addFocus(_ box: Box, fractions: Bool) throws(ServerError) {
            if let relativeFocus, relativeFocus != fractions {
                throw ServerError.invalid("focal() filters give either pixels or fractions of the image (values under 1), not both")
            }
            relativeFocus = fractions
            focus = focus.map { $0.union(box) } ?? box
        }
        // Each filter's canonical spelling, by its place in the URL; nil for one a later one of
        // the same name replaces (thumbor and imagor apply filters in order: the last setting wins).
        var spelled: [String?] = []
        var lastOfName: [String: Int] = [:]
        for var filter in url.filters {
            // imagor's crop(…) after the resize is Focal's output_crop(…).
            if filter.name == "crop" { filter.name = OutputCrop.name }
            // The argument as it means, percent-decoded once as thumbor's router does; an unsafe
            // URL is redirected to it written plainly.
            let written = filter.arguments.trimmingCharacters(in: .whitespaces)
            let argument = try Self.decodedArgument(written, of: filter.name)
            // What thumbor reads and leaves as it is: served without it (and spelled without it).
            if URLFilter.ignores(filter.name, argument) { continue }
            var canonical = argument
            // An effect given twice is applied twice, in the URL's order (thumbor's meaning), as
            // two watermarks (or imagor's images) are two marks; focal() regions add up; any other
            // filter given again replaces the earlier one.
            let repeats = filter.name == "focal" || Self.layeredFilters.contains(filter.name) || Effects.all.contains { $0.name == filter.name }
            if !repeats, let earlier = lastOfName[filter.name] {
                guard !Self.addressFilters.contains(filter.name) else {
                    throw ServerError.invalid("\(filter.name)() is given twice: Focal lays one \(filter.name)() per image; give it once")
                }
                // A signed URL means what its signer wrote: one value per setting.
                guard url.signature == nil else { throw ServerError(.requestNotCanonical, "the filter \(filter.name)() is given twice; give it once") }
                spelled[earlier] = nil
            }
            lastOfName[filter.name] = spelled.count
            // (An image's address is kept as written: the resolver decodes it as it does the image part.)
            defer { spelled.append(filter.name + "(" + (Self.undecodedFilters.contains(filter.name) ? canonical : Self.pathEncoded(canonical)) + ")") }
            switch filter.name {
            case "aspect":
                do {
                    guard case let .aspect(a, b) = try CropTarget(parsingAspect: argument) else { continue }
                    aspect = (a, b)
                } catch {
                    throw ServerError.invalid(error.publicMessage)
                }
                if let (a, b) = aspect { canonical = "\(a):\(b)" }
            case "redact_oval":
                // imagor's spelling of redact(…,oval).
                guard let option = CropOption.named("redact") else { continue }
                do throws(PlanningError) {
                    try option.apply(argument + ",oval", to: &options)
                } catch {
                    throw ServerError.invalid(error.publicMessage.replacingOccurrences(of: "redact", with: "redact_oval"))
                }
                if let text = option.text(of: options), text.hasSuffix(",oval") { canonical = String(text.dropLast(",oval".count)) }
            case "to_colorspace":
                throw ServerError.invalid("to_colorspace(\(argument.excerpt(20))): Focal writes sRGB only; write to_colorspace(srgb) or leave it out")
            case "trim":
                // imagor's filter: a tolerance and a corner, in either order.
                let parts = argument.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                let corner = parts.first { Trim.Corner(rawValue: $0.lowercased()) != nil }
                let tolerance = parts.first { corner != $0 }
                guard parts.count <= 2, parts.count == [corner, tolerance].compactMap({ $0 }).count else {
                    throw ServerError.invalid("trim(\(argument.excerpt(40))) takes a tolerance and a corner (top-left or bottom-right)")
                }
                do {
                    let trim = try Trim(text: [corner ?? "top-left", tolerance].compactMap { $0 }.joined(separator: ":"))
                    options.trim = trim
                    canonical = trim.tolerance == 0 ? trim.corner.rawValue : "\(trim.tolerance),\(trim.corner.rawValue)"
                } catch {
                    throw ServerError.invalid(error.publicMessage)
                }
            case "strip_icc", "strip_exif", "strip_metadata":
                // Outputs never carry metadata or profiles.
                break
            case "cover":
                // thumbor's GIF cover: the first frame, as max_frames(1).
                guard argument.isEmpty else { throw ServerError.invalid("cover() takes no arguments") }
                if url.filters.contains(where: { $0.name == "max_frames" || $0.name == "page" }) {
                    throw ServerError.invalid("cover() is max_frames(1), the first frame: give cover(), max_frames(N) or page(N), one of them")
                }
                options.maxFrames = 1
            case "extract_focal":
                guard argument.isEmpty else { throw ServerError.invalid("extract_focal() takes no arguments") }
                // The crop of the thumbor URL in the image part is a focal region, as focal(…) gives
                // one; none there, nothing changes (thumbor's filter does the same).
                guard let (left, top, right, bottom) = url.extractedCrop else { continue }
                guard right > left, bottom > top else {
                    throw ServerError.invalid("extract_focal() found the crop \(left)x\(top):\(right)x\(bottom), whose right-bottom corner is not past its left-top one")
                }
                try addFocus(Box(x: Double(left), y: Double(top), width: Double(right - left), height: Double(bottom - top)), fractions: false)
            case "max_age": maxAge = try URLFilter.maxAge(argument)
            case "expire": expires = try URLFilter.expire(argument)
            case "attachment": attachment = .some(try URLFilter.attachment(argument))
            default:
                if let reason = URLFilter.refused[filter.name] { throw ServerError.invalid(reason) }
                guard let option = CropOption.filtered(filter.name) else {
                    let known = CropOption.all.compactMap(\.filter) + URLFilter.all.map(\.name)
                    throw ServerError.invalid("unknown filter \(filter.name)(); Focal knows \(known.joined(separator: ", "))")
                }
                do {
                    if option.name == "focus" {
                        // Several focal() filters make one region; a point is a region of no size.
                        var one = FocalOptions()
                        try option.apply(argument, to: &one)
                        let box: Box, fractions: Bool
                        switch one.crop.override {
                        case let .region(r)?: (box, fractions) = (Box(x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height)), false)
                        case let .focus(x, y)?: (box, fractions) = (Box(x: x, y: y, width: 0, height: 0), false)
                        case let .relativeRegion(b)?: (box, fractions) = (b, true)
                        case let .relativeFocus(x, y)?: (box, fractions) = (Box(x: x, y: y, width: 0, height: 0), true)
                        case nil: (box, fractions) = (Box(x: 0, y: 0, width: 0, height: 0), false)
                        }
                        try addFocus(box, fractions: fractions)
                    } else {
                        var alone = FocalOptions()
                        try option.apply(argument, to: &alone)
                        if repeats, let effect = alone.effects.first, options.effects.contains(where: { $0.name == effect.name }) {
                            options.effects.append(effect)
                        } else if let mark = alone.watermark, options.watermark != nil {
                            options.watermarks.append(mark)
                        } else if let overlay = alone.imageOverlay, options.imageOverlay != nil {
                            options.imageOverlays.append(overlay)
                        } else {
                            try option.apply(argument, to: &options)
                        }
                        // One spelling per unsafe URL: the value as the option table prints it.
                        // (A signed URL is written as its signer chose: thumbor takes format(jpg).)
                        // A switch's filter is on with no argument (`draw_detections()`).
                        let bare = argument.isEmpty && option.text(of: alone) == "on"
                        if !bare, let text = option.text(of: alone) { canonical = text }
                    }
                } catch let error as ServerError {
                    throw error
                } catch let error as PlanningError {
                    throw ServerError.invalid(error.publicMessage)
                } catch {
                    throw ServerError.invalid("\(filter.name)() is malformed")
                }
                if option.name == "format" { formatChosen = true }
            }
        }
        for (filter, count) in [("watermark", options.watermarks.count), ("image", options.imageOverlays.count)] where count > OverlaySlot.maxPerFilter {
            throw ServerError.invalid("the URL gives \(count) \(filter)() filters; at most \(OverlaySlot.maxPerFilter) are laid on one image")
        }
        // Without a size (no W or H, no fit-in, no aspect()) thumbor answers the whole image: a
        // focal region only steers a crop, and there is none to make. So does Focal, and the URL
        // is spelled without it.
        if focus != nil, url.width == .auto, url.height == .auto, url.fitIn == nil, aspect == nil {
            focus = nil
            for index in spelled.indices where spelled[index]?.hasPrefix("focal(") == true { spelled[index] = nil }
        }
        var crop = options.crop
        if let (left, top, right, bottom) = url.manualCrop {
            guard right > left, bottom > top else {
                throw ServerError.invalid("crop \(left)x\(top):\(right)x\(bottom) must have its right-bottom corner past its left-top one")
            }
            crop.bounds = PixelRect(x: left, y: top, width: right - left, height: bottom - top)
        }
        if let focus, relativeFocus == true {
            // Fractions of the image (imagor's values under 1): a point chosen on a thumbnail.
            crop.override = focus.width > 0 && focus.height > 0 ? .relativeRegion(focus) : .relativeFocus(x: focus.x, y: focus.y)
        } else if let focus {
            // A focal region the planner frames; a point is a region of no size.
            let x = Int(saturating: focus.x.rounded(.down)), y = Int(saturating: focus.y.rounded(.down))
            crop.override = focus.width > 0 && focus.height > 0
                ? .region(PixelRect(x: x, y: y, width: max(1, Int(saturating: focus.width.rounded(.up))), height: max(1, Int(saturating: focus.height.rounded(.up)))))
                : .focus(x: focus.x, y: focus.y)
        } else if !url.smart {
            crop.detect = false
            if url.horizontalAlignment != nil || url.verticalAlignment != nil {
                let x: Double = switch url.horizontalAlignment { case .left?: 0; case .right?: 1; default: 0.5 }
                let y: Double = switch url.verticalAlignment { case .top?: 0; case .bottom?: 1; default: 0.5 }
                crop.override = .relativeFocus(x: x, y: y)
            }
        }
        options.crop = crop
        if url.stretch { options.sizing.stretch = true }
        // fill(…) fills the box the URL's W and H ask for.
        if options.fill != nil {
            if case let .pixels(w) = url.width { options.fill?.box.width = w }
            if case let .pixels(h) = url.height { options.fill?.box.height = h }
        }
        // imagor's paddings: the image made for what they leave of W x H, placed in the middle of
        // that, the rest filled (fill(…)'s colour, else white).
        var sized = url
        if let (left, top, right, bottom) = url.padding {
            guard case let .pixels(w) = url.width, case let .pixels(h) = url.height else {
                throw ServerError.invalid("paddings after the size need both a width and a height (WxH/LxT:RxB/)")
            }
            let (inner, innerHeight) = (w - left - right, h - top - bottom)
            guard inner >= 1, innerHeight >= 1 else {
                throw ServerError.invalid("the paddings \(left)x\(top):\(right)x\(bottom) leave nothing of \(w)x\(h)")
            }
            var fill = options.fill
            if fill == nil { fill = try? Fill(text: "ffffff") }
            fill?.box = (w, h)
            fill?.shift = ((left - right) / 2, (top - bottom) / 2)
            options.fill = fill
            (sized.width, sized.height) = (.pixels(inner), .pixels(innerHeight))
        }
        self.options = options
        self.formatChosen = formatChosen
        let filters = spelled.compactMap { $0 }
        canonicalPath = (url.canonicalOptions + (filters.isEmpty ? [] : ["filters:" + filters.joined(separator: ":")]) + [url.canonicalImage])
            .joined(separator: "/")
        rule = try Self.rule(sized, aspect: aspect, upscale: options.sizing.upscale)
    }

    /// `text` as it goes in a URL path: a space, `%`, `#`, `?`, quotes, angle brackets, braces,
    /// `\`, `^`, a backquote, a control or non-ASCII byte percent-encoded, everything else as it
    /// is. A decoded argument is written so in the canonical path, so that the redirected request
    /// decodes to it again and is not redirected a second time.
    static func pathEncoded(_ text: String) -> String {
        let plain = text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !Self.escaped.contains($0) }
        guard !plain else { return text }
        var out = ""
        for byte in text.utf8 {
            if byte > 0x20 && byte < 0x7F && !Self.escaped.contains(byte) {
                out.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    private static let escaped: Set<UInt8> = Set(" \"#%<>?\\^`{}".utf8)

    /// The filters whose argument names an image (a file, `id:`, `b64:` or a URL): the overlays
    /// (`OverlaySlot.filters`). The source resolver decodes it, as it does the image part, so it is
    /// passed on as written.
    static let addressFilters = Set(OverlaySlot.filters)

    /// The filters whose argument is passed on as written: the address filters, and `label(…)`,
    /// whose text decodes itself after its arguments are split (a `%2C` is a comma in the text,
    /// not between arguments), and whose canonical spelling is encoded already.
    static let undecodedFilters = addressFilters.union([Label.name])

    /// The overlay filters a URL may give more than once, each one more image laid on
    /// (`OverlaySlot.maxPerFilter` at most).
    static let layeredFilters: Set<String> = ["watermark", "image"]

    /// A filter's argument as it means, percent-decoded once (thumbor's router decodes the
    /// filters before reading them, so a signed `curve(%5B…%5D)` is `curve([…])`); an address
    /// filter's argument as written.
    /// - Throws: `ServerError` (`request.invalid`) for a `%` that does not start an encoded byte
    ///   or bytes that do not decode to UTF-8.
    static func decodedArgument(_ written: String, of filter: String) throws(ServerError) -> String {
        guard written.contains("%"), !undecodedFilters.contains(filter) else { return written }
        guard let decoded = written.removingPercentEncoding else {
            throw ServerError.invalid("\(filter)(\(written.excerpt(40))) has a % that does not start an encoded UTF-8 byte (%XX); write the argument unencoded")
        }
        return decoded
    }

    /// The target rule for the URL's size, `fit-in` and `aspect()`.
    static func rule(_ url: ThumborURL, aspect: (Int, Int)?, upscale: Bool = false) throws(ServerError) -> TargetRule {
        let (width, height) = (url.width, url.height)
        if let (a, b) = aspect {
            guard url.fitIn == nil else { throw ServerError.invalid("aspect() and fit-in cannot be used together") }
            switch (width, height) {
            case (.pixels, .pixels): throw ServerError.invalid("aspect() cannot be used with both a width and a height")
            case let (.pixels(w), _): return .fixed(.size(width: w, height: max(1, Int(saturating: (Double(w) * Double(b) / Double(a)).rounded()))))
            case let (_, .pixels(h)): return .fixed(.size(width: max(1, Int(saturating: (Double(h) * Double(a) / Double(b)).rounded())), height: h))
            default: return .fixed(.aspect(width: a, height: b))
            }
        }
        if case let .pixels(w) = width, case let .pixels(h) = height, url.fitIn == nil {
            return .fixed(.size(width: w, height: h))
        }
        let key = "w=\(width);h=\(height);fit=\(url.fitIn?.rawValue ?? "none")" + (upscale ? ";upscale" : "")
        let fitIn = url.fitIn
        return TargetRule(key: key) { source throws(PlanningError) -> CropTarget in
            let sw = Double(source.width), sh = Double(source.height)
            func pixels(_ side: ThumborURL.Side, original: Int) -> Int? {
                switch side {
                case .auto: nil
                case .original: original
                case let .pixels(n): n
                }
            }
            var w = pixels(width, original: source.width), h = pixels(height, original: source.height)
            if let fitIn {
                // Turn the box to the image's orientation first, when asked.
                if fitIn == .adaptive || fitIn == .adaptiveFull, let bw = w, let bh = h,
                    (source.width < source.height && bw > bh) || (source.width > source.height && bw < bh)
                {
                    (w, h) = (bh, bw)
                }
                let full = fitIn == .full || fitIn == .adaptiveFull
                let scales = [w.map { Double($0) / sw }, h.map { Double($0) / sh }].compactMap { $0 }
                guard let scale = full ? scales.max() : scales.min() else {
                    return .aspect(width: source.width, height: source.height).reduced
                }
                // Never enlarged to fit (thumbor's fit-in only shrinks), unless upscale() asks.
                if !full && scale >= 1 && !upscale { return .aspect(width: source.width, height: source.height).reduced }
                return .size(width: max(1, Int(saturating: (sw * scale).rounded())), height: max(1, Int(saturating: (sh * scale).rounded())))
            }
            switch (w, h) {
            case let (w?, h?): return .size(width: w, height: h)
            case let (w?, nil): return .size(width: w, height: max(1, Int(saturating: (Double(w) * sh / sw).rounded())))
            case let (nil, h?): return .size(width: max(1, Int(saturating: (Double(h) * sw / sh).rounded())), height: h)
            case (nil, nil): return .aspect(width: source.width, height: source.height).reduced
            }
        }
    }
}

extension CropTarget {
    /// An aspect with its terms divided by their greatest common divisor (sizes unchanged).
    var reduced: CropTarget {
        guard case let .aspect(a, b) = self else { return self }
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x > 1 ? .aspect(width: a / x, height: b / x) : self
    }
}

extension String {
    /// The string with `0`s before it up to `length` characters.
    fileprivate func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
