package import Foundation
package import Focal
package import FocalTools

/// The mean red, green and blue of a buffer or part of it.
package struct MeanColor: CustomStringConvertible, Sendable {
    package var r, g, b: Double
    package init(r: Double, g: Double, b: Double) {
        self.r = r
        self.g = g
        self.b = b
    }
    /// The mean of the three.
    package var brightness: Double { (r + g + b) / 3 }
    /// The Euclidean distance between two colours.
    package func distance(to other: MeanColor) -> Double {
        ((r - other.r) * (r - other.r) + (g - other.g) * (g - other.g) + (b - other.b) * (b - other.b)).squareRoot()
    }
    package var description: String { String(format: "(%.1f, %.1f, %.1f)", r, g, b) }
}

extension PixelBuffer {
    /// The mean colour of the buffer, or of `rect` inside it.
    package func mean(_ rect: PixelRect? = nil) -> MeanColor {
        let rect = rect ?? PixelRect(x: 0, y: 0, width: width, height: height)
        var sums = (0.0, 0.0, 0.0)
        for y in rect.y..<(rect.y + rect.height) {
            for x in rect.x..<(rect.x + rect.width) {
                let i = (y * width + x) * 3
                sums.0 += Double(bytes[i])
                sums.1 += Double(bytes[i + 1])
                sums.2 += Double(bytes[i + 2])
            }
        }
        let n = Double(rect.width * rect.height)
        return MeanColor(r: sums.0 / n, g: sums.1 / n, b: sums.2 / n)
    }

    /// The standard deviation of the brightness: 0 for a uniform picture.
    package var brightnessSpread: Double {
        let count = width * height
        var sum = 0.0, squares = 0.0
        for i in 0..<count {
            let v = (Double(bytes[3 * i]) + Double(bytes[3 * i + 1]) + Double(bytes[3 * i + 2])) / 3
            sum += v
            squares += v * v
        }
        let mean = sum / Double(count)
        return max(0, squares / Double(count) - mean * mean).squareRoot()
    }

    /// The colour of one pixel.
    package func pixel(_ x: Int, _ y: Int) -> RGB {
        let i = (y * width + x) * 3
        return RGB(bytes[i], bytes[i + 1], bytes[i + 2])
    }

    /// A buffer filled by `color(x, y)`.
    package static func make(width: Int, height: Int, _ color: (Int, Int) -> RGB) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let c = color(x, y), i = (y * width + x) * 3
                bytes[i] = c.r
                bytes[i + 1] = c.g
                bytes[i + 2] = c.b
            }
        }
        return PixelBuffer(unchecked: width, height: height, bytes: bytes)
    }
}

/// Scales a rectangle of an image of `from` pixels to the same region of an image of `to` pixels.
package func scaled(_ rect: PixelRect, from: PixelSize, to: PixelSize) -> PixelRect {
    let sx = Double(to.width) / Double(from.width), sy = Double(to.height) / Double(from.height)
    let x0 = Int((Double(rect.x) * sx).rounded()), y0 = Int((Double(rect.y) * sy).rounded())
    let x1 = Int((Double(rect.x + rect.width) * sx).rounded()), y1 = Int((Double(rect.y + rect.height) * sy).rounded())
    return PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
}

extension Data {
    /// Whether the data begins with `bytes`.
    package func starts(with bytes: [UInt8]) -> Bool { count >= bytes.count && Array(prefix(bytes.count)) == bytes }
}
