public import FocalCore
public import Foundation
import FocalImaging

/// imagor's `color:` source: no file at all, a blank image of one colour (`color:ff6600`,
/// `color:f60`, `color:red`, `color:transparent`) at the size the door gives it (the output size
/// asked for). Crops, effects, overlays and every format then apply to it as to a photo.
public struct BlankImage: Hashable, Sendable, CustomStringConvertible {
    /// The colour; nil for transparent.
    public let colour: RGBColour?
    /// Its size.
    public let size: PixelSize

    /// The source's prefix.
    public static let scheme = "color:"

    /// Whether `source` names a blank image (`color:…`, in any case).
    public static func names(_ source: String) -> Bool { source.lowercased().hasPrefix(scheme) }

    /// Reads `color:COLOUR` at `size`.
    /// - Parameters:
    ///   - source: `color:` then hex digits (`ff6600`, `f60`), a basic colour name (`red`,
    ///     `orange`) or `transparent`.
    ///   - size: Its size; each side 1 to `limits.maxOutputSide`.
    ///   - limits: The output limits it is made within; default `ImageLimits.default`.
    /// - Throws: `PlanningError.invalidOption` naming what is wrong.
    public init(_ source: String, size: PixelSize, limits: ImageLimits = .default) throws(PlanningError) {
        guard Self.names(source) else { throw PlanningError.invalidOption("'\(source.excerpt())' is not a color: source") }
        let text = String(source.dropFirst(Self.scheme.count))
        if text.lowercased() == "transparent" || text.lowercased() == "none" {
            colour = nil
        } else if let parsed = RGBColour(text: text) {
            colour = parsed
        } else {
            throw PlanningError.invalidOption(
                "color: source '\(text.excerpt())' is not a colour: hex digits (ff6600, f60), a basic colour name (red, orange) or transparent")
        }
        guard size.width >= 1, size.height >= 1, size.width <= limits.maxOutputSide, size.height <= limits.maxOutputSide else {
            throw PlanningError.invalidOption(
                "a color: source is made at the output's size, which must be 1 to \(limits.maxOutputSide) pixels a side (not \(size.width)x\(size.height))")
        }
        self.size = size
    }

    /// `color:rrggbb WxH` (or `color:transparent WxH`): its name in messages and cache keys.
    public var description: String {
        var name = "transparent"
        if let colour { name = [colour.red, colour.green, colour.blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
        return "\(Self.scheme)\(name) \(size.width)x\(size.height)"
    }

    /// The image as a lossless PNG: three bands for a colour, four (all clear) for transparent.
    func encoded() throws(ImagingError) -> Data {
        let count = size.width * size.height
        var rgba = [UInt8](repeating: 0, count: count * 4)
        if let colour {
            for i in 0..<count {
                rgba[4 * i] = colour.red
                rgba[4 * i + 1] = colour.green
                rgba[4 * i + 2] = colour.blue
                rgba[4 * i + 3] = 255
            }
        }
        var image = try RenderedImage(rgba: rgba, size: size)
        if colour != nil { image = try image.flattened(on: RGBColour(red: 0, green: 0, blue: 0)) }
        return try image.encode(.png)
    }
}
