internal import CFocalInference
public import FocalCore
internal import FocalRuntime

/// Finds the region of visual interest with the spectral residual method (Hou & Zhang 2007):
/// the fallback when no face, pet or person is found. No model file; under a millisecond.
///
/// The map is computed on a 256 px copy; the region is the box of ±1.5 standard deviations
/// around the saliency-weighted centre (weights squared, so that the strongest response leads),
/// and its confidence is the share of all saliency that falls inside it.
public struct SaliencyDetector: SubjectDetecting {
    /// The map's width; its height follows the image's aspect.
    let mapWidth = 64

    public var identifier: String { "spectral-residual/64" }

    /// Creates the detector.
    public init() {}

    public func detect(_ request: DetectionRequest) async throws -> [Subject] {
        let proxy = try await request.pixels(longSide: 256)
        guard let region = try await request.runBlocking({ try self.region(in: proxy) }) else { return [] }
        return [Subject(kind: .saliency, box: request.toImage(region.box, from: proxy), confidence: region.confidence)]
    }

    /// The salient region of `image` in its pixels, or nil for a flat image.
    public func region(in image: PixelBuffer) throws(DetectionError) -> (box: Box, confidence: Double)? {
        let mw = mapWidth, mh = min(4096, max(1, Int((Double(mapWidth) * Double(image.height) / Double(image.width)).rounded())))
        var map = [Float](repeating: 0, count: mw * mh)
        let (width, height, stride) = try image.cGeometry()
        let (status, text) = withErrorText { err, len in
            image.bytes.withUnsafeBufferPointer { pixels in
                map.withUnsafeMutableBufferPointer { out in
                    focal_saliency(
                        pixels.baseAddress, pixels.count, width, height, stride,
                        Int32(mw), Int32(mh), out.baseAddress, out.count, err, len)
                }
            }
        }
        if status != 0 { throw DetectionError(.detectionFailed, "saliency failed", cause: text) }

        var total = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0
        for y in 0..<mh {
            for x in 0..<mw {
                let w = Double(map[y * mw + x]) * Double(map[y * mw + x])
                let cx = Double(x) + 0.5, cy = Double(y) + 0.5
                total += w
                sx += w * cx
                sy += w * cy
                sxx += w * cx * cx
                syy += w * cy * cy
            }
        }
        guard total > 1e-9 else { return nil }
        let mx = sx / total, my = sy / total
        let dx = max(1, 1.5 * max(0, sxx / total - mx * mx).squareRoot())
        let dy = max(1, 1.5 * max(0, syy / total - my * my).squareRoot())
        let box = Box(x: mx - dx, y: my - dy, width: 2 * dx, height: 2 * dy)
            .clamped(to: PixelSize(width: mw, height: mh))
        var inside = 0.0
        for y in 0..<mh {
            for x in 0..<mw where box.contains(x: Double(x) + 0.5, y: Double(y) + 0.5) {
                inside += Double(map[y * mw + x]) * Double(map[y * mw + x])
            }
        }
        let scale = Double(image.width) / Double(mw), scaleY = Double(image.height) / Double(mh)
        return (box.scaled(x: scale, y: scaleY), inside / total)
    }
}
