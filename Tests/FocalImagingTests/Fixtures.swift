import FocalCore
import FocalImaging
import Foundation
import Testing

/// Every suite of this target is nested in this one so that they run one at a time: the leak
/// test counts libvips objects process-wide, and a decode running beside it would move the count.
@Suite(.serialized) struct LibvipsLayer {}

/// The real photos in `Fixtures/`, found from this file's path (package root = three levels up).
enum Fixture: String, CaseIterable {
    case astronaut = "astronaut.png"
    case chelsea = "chelsea.png"
    case coffee = "coffee.png"
    case graceHopper = "grace_hopper.jpg"

    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // FocalImagingTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("Fixtures")

    var path: String { Fixture.directory.appendingPathComponent(rawValue).path }

    /// The file's bytes; records an issue and returns empty data when it is missing.
    var data: Data {
        get throws {
            guard FileManager.default.fileExists(atPath: path) else {
                Issue.record("missing fixture \(path): run scripts/setup.sh fixtures")
                throw CocoaError(.fileNoSuchFile)
            }
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
    }
}

/// A fresh folder under the system temporary directory, removed by `remove()`.
struct ScratchFolder {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("focal-imaging-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    var contents: [String] { (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.sorted() ?? [] }
    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body` and returns the `ImagingError` it throws, recording an issue when it throws
/// nothing or something else.
func imagingError<T>(
    _ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation
) -> ImagingError? {
    do {
        _ = try body()
        Issue.record("expected an ImagingError, got a value", sourceLocation: sourceLocation)
        return nil
    } catch let error as ImagingError {
        return error
    } catch {
        Issue.record("expected an ImagingError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

// MARK: - Pixel statistics

/// The mean red, green and blue of a buffer, or of `rect` inside it.
struct MeanColor: CustomStringConvertible {
    var r, g, b: Double
    var brightness: Double { (r + g + b) / 3 }
    func distance(to other: MeanColor) -> Double {
        ((r - other.r) * (r - other.r) + (g - other.g) * (g - other.g) + (b - other.b) * (b - other.b)).squareRoot()
    }
    var description: String { String(format: "(%.1f, %.1f, %.1f)", r, g, b) }
}

extension PixelBuffer {
    func mean(_ rect: PixelRect? = nil) -> MeanColor {
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
    var brightnessSpread: Double {
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

    func pixel(_ x: Int, _ y: Int) -> RGB {
        let i = (y * width + x) * 3
        return RGB(bytes[i], bytes[i + 1], bytes[i + 2])
    }

    /// A buffer filled by `color(x, y)`.
    static func make(width: Int, height: Int, _ color: (Int, Int) -> RGB) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let c = color(x, y), i = (y * width + x) * 3
                bytes[i] = c.r
                bytes[i + 1] = c.g
                bytes[i + 2] = c.b
            }
        }
        return PixelBuffer(width: width, height: height, bytes: bytes)!
    }
}

/// Scales a rectangle of an image of `from` pixels to the same region of an image of `to` pixels.
func scaled(_ rect: PixelRect, from: PixelSize, to: PixelSize) -> PixelRect {
    let sx = Double(to.width) / Double(from.width), sy = Double(to.height) / Double(from.height)
    let x0 = Int((Double(rect.x) * sx).rounded()), y0 = Int((Double(rect.y) * sy).rounded())
    let x1 = Int((Double(rect.x + rect.width) * sx).rounded()), y1 = Int((Double(rect.y + rect.height) * sy).rounded())
    return PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
}

extension Data {
    func starts(with bytes: [UInt8]) -> Bool { count >= bytes.count && Array(prefix(bytes.count)) == bytes }
}
