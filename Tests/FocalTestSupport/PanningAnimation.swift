package import FocalCore
package import FocalImaging
import FocalRuntime
package import Foundation

/// An animation made by panning a real photo across a grey canvas, so that where its subjects
/// are in each frame is known: frame `i` shows the photo, scaled to `sprite`, with its top-left
/// corner at `offsets[i]`.
package struct PanningAnimation: Sendable {
    /// The encoded animation.
    package let data: Data
    /// The canvas (each frame's size).
    package let canvas: PixelSize
    /// The photo's size on the canvas.
    package let sprite: PixelSize
    /// The photo's scale on the canvas (sprite / photo).
    package let scale: Double
    /// Where the photo's top-left corner is in each frame.
    package let offsets: [(x: Int, y: Int)]
    /// Each frame's delay, in ms.
    package let delays: [Int]
    /// Plays; 0 for ever.
    package let loop: Int

    /// Pans `fixture`, scaled to `spriteWidth` wide, from `from` to `to` over `frames` frames.
    /// - Parameters:
    ///   - format: GIF or WebP.
    package init(
        _ fixture: Fixture, canvas: PixelSize, spriteWidth: Int, frames: Int, from: (x: Int, y: Int), to: (x: Int, y: Int),
        format: ImageFormat, delay: Int = 80, loop: Int = 3
    ) throws {
        let photo = try SourceImage.open(path: fixture.path)
        scale = Double(spriteWidth) / Double(photo.size.width)
        sprite = PixelSize(width: spriteWidth, height: Int((Double(photo.size.height) * scale).rounded()))
        let pixels = try photo.pixels(width: sprite.width, height: sprite.height)
        self.canvas = canvas
        var offsets: [(x: Int, y: Int)] = []
        var rendered: [RenderedImage] = []
        for i in 0..<frames {
            let t = frames > 1 ? Double(i) / Double(frames - 1) : 0
            let x = Int((Double(from.x) + Double(to.x - from.x) * t).rounded()), y = Int((Double(from.y) + Double(to.y - from.y) * t).rounded())
            offsets.append((x, y))
            var bytes = [UInt8](repeating: 128, count: canvas.area * 3)
            for row in 0..<sprite.height where y + row >= 0 && y + row < canvas.height {
                for column in 0..<sprite.width where x + column >= 0 && x + column < canvas.width {
                    let from = 3 * (row * sprite.width + column), to = 3 * ((y + row) * canvas.width + x + column)
                    bytes[to] = pixels.bytes[from]
                    bytes[to + 1] = pixels.bytes[from + 1]
                    bytes[to + 2] = pixels.bytes[from + 2]
                }
            }
            guard let frame = PixelBuffer(width: canvas.width, height: canvas.height, bytes: bytes) else {
                throw ImagingError(.internalFailure, "frame of \(canvas)")
            }
            rendered.append(try RenderedImage(pixels: frame))
        }
        self.offsets = offsets
        delays = Array(repeating: delay, count: frames)
        self.loop = loop
        data = try RenderedImage.encodeAnimation(
            rendered, delays: delays, loop: loop, settings: EncodeSettings(format: format, quality: 90), deadline: Deadline(in: .seconds(120)))
    }

    /// A box of the photo (its own pixels) where it is in frame `index`.
    package func box(_ box: Box, inFrame index: Int) -> Box {
        Box(
            x: Double(offsets[index].x) + box.x * scale, y: Double(offsets[index].y) + box.y * scale, width: box.width * scale,
            height: box.height * scale)
    }
}
