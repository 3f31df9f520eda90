/// How the output's size follows from the request and the image, as thumbor's sizing filters say:
/// `no_upscale()`, `upscale()`, `proportion(F)` and `stretch()`.
public struct Sizing: Hashable, Sendable, Encodable {
    /// `no_upscale()`: each side of an exact size at most the image's (or its bounds'). Default false.
    public var noUpscale = false
    /// `upscale()`: `fit-in` enlarges an image smaller than its box to fit it (else it never
    /// enlarges). Default false.
    public var upscale = false
    /// `proportion(F)`: the output scaled by F, in (0, 1]. Default nil: 1.
    public var proportion: Double?
    /// `stretch()`: the whole image (or its bounds) resized to the size asked, its aspect not
    /// kept and nothing cropped. Default false.
    public var stretch = false

    /// No sizing filter.
    public init() {}

    /// Whether nothing is asked.
    public var isDefault: Bool { self == Sizing() }

    /// Whether the target depends on the image's size (so it waits until the image is open).
    public var needsImageSize: Bool { noUpscale || proportion != nil }

    /// `target` for an image (or bounds) of `size`, with `no_upscale()` and `proportion(F)`
    /// applied: an exact size capped side by side at the image's; an aspect's largest crop scaled
    /// by F into an exact size.
    public func adjusted(_ target: CropTarget, imageSize size: PixelSize) -> CropTarget {
        var target = target
        if noUpscale, case let .size(w, h) = target {
            target = .size(width: min(w, size.width), height: min(h, size.height))
        }
        guard let proportion, proportion < 1 else { return target }
        let (w, h): (Int, Int)
        switch target {
        case let .size(width, height): (w, h) = (width, height)
        case .aspect:
            let frame = CropFrame(imageSize: size, target: target).fill
            (w, h) = (frame.width, frame.height)
        }
        return .size(
            width: Int(rounding: (Double(w) * proportion).rounded(.down), within: 1...max(1, w)),
            height: Int(rounding: (Double(h) * proportion).rounded(.down), within: 1...max(1, h)))
    }
}
