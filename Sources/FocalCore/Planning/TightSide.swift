/// A tight crop (`tight(width)`, imgix's `fit=facearea`): the frame is the padded box of the kept
/// subjects, its aspect theirs, output at the side of the size asked that this names (the other
/// side follows the box, whatever the size asked gives it).
public enum TightSide: String, Hashable, Sendable, Encodable, CaseIterable {
    /// The output is as wide as asked.
    case width
    /// The output is as tall as asked.
    case height

    /// Reads `width` or `height` (an empty text or `on` is `width`).
    /// - Throws: `PlanningError.invalidOption` naming what it takes.
    public init(text: String) throws(PlanningError) {
        let value = text.trimmingSpaces.lowercased()
        switch value {
        case "", "on", "true", "width", "w": self = .width
        case "height", "h": self = .height
        default: throw PlanningError.invalidOption("tight '\(text.prefix(20))' must be width or height: the side of the size the output keeps")
        }
    }

    /// The output size for a subject box of `box` at the size `asked` (its side this names),
    /// and the crop of `imageSize` around `box` at that size's aspect (within a pixel).
    func frame(for box: Box, asked: PixelSize, imageSize: PixelSize) -> (crop: PixelRect, output: PixelSize) {
        let ratio = box.width / max(box.height, 1e-9)
        let output: PixelSize
        switch self {
        case .width:
            output = PixelSize(width: asked.width, height: Int(rounding: Double(asked.width) / ratio, within: 1...CropPlanner.maxImageSide))
        case .height:
            output = PixelSize(width: Int(rounding: Double(asked.height) * ratio, within: 1...CropPlanner.maxImageSide), height: asked.height)
        }
        // The crop: the box's own size at the output's aspect, inside the image.
        let aspect = Double(output.width) / Double(output.height)
        var width = box.width, height = box.width / aspect
        if height > Double(imageSize.height) { (height, width) = (Double(imageSize.height), Double(imageSize.height) * aspect) }
        if width > Double(imageSize.width) { (width, height) = (Double(imageSize.width), Double(imageSize.width) / aspect) }
        let w = Int(rounding: width, within: 1...imageSize.width), h = Int(rounding: height, within: 1...imageSize.height)
        let x = Int(rounding: box.midX - Double(w) / 2, within: 0...(imageSize.width - w))
        let y = Int(rounding: box.midY - Double(h) / 2, within: 0...(imageSize.height - h))
        return (PixelRect(x: x, y: y, width: w, height: h), output)
    }
}
