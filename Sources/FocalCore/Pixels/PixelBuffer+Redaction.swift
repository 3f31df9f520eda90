extension PixelBuffer {
    /// The buffer with `regions` (in its own pixels; clipped to it) hidden as `redaction` says:
    /// blurred (three box blurs, close to a Gaussian), pixelated (blocks of their mean colour) or
    /// filled, as rectangles or as the ovals inside them. Pixels outside every region are unchanged.
    public func redacting(_ regions: [PixelRect], with redaction: Redaction) -> PixelBuffer {
        var out = bytes
        for region in regions {
            guard let r = region.clipped(to: size), r.width > 0, r.height > 0 else { continue }
            let hidden: [UInt8]
            switch redaction.style {
            case .blur:
                let radius = Redaction.blurRadius(forRegion: max(r.width, r.height), percent: redaction.strength ?? Redaction.defaultBlur)
                hidden = Self.blurred(out, width: width, region: r, radius: radius)
            case .pixelate:
                let block = Redaction.blockSide(forRegion: max(r.width, r.height), blocks: redaction.strength ?? Redaction.defaultBlocks)
                hidden = Self.pixelated(out, width: width, region: r, block: block)
            case let .fill(red, green, blue):
                hidden = [UInt8](unsafeUninitializedCapacity: r.width * r.height * 3) { buffer, count in
                    for i in 0..<(r.width * r.height) {
                        buffer[3 * i] = red
                        buffer[3 * i + 1] = green
                        buffer[3 * i + 2] = blue
                    }
                    count = r.width * r.height * 3
                }
            }
            // Written back: every pixel of a rectangle, those inside the ellipse of an oval.
            let (cx, cy) = (Double(r.width) / 2, Double(r.height) / 2)
            for y in 0..<r.height {
                for x in 0..<r.width {
                    if redaction.shape == .oval {
                        let dx = (Double(x) + 0.5 - cx) / cx, dy = (Double(y) + 0.5 - cy) / cy
                        if dx * dx + dy * dy > 1 { continue }
                    }
                    let source = 3 * (y * r.width + x), target = 3 * ((r.y + y) * width + r.x + x)
                    out[target] = hidden[source]
                    out[target + 1] = hidden[source + 1]
                    out[target + 2] = hidden[source + 2]
                }
            }
        }
        return PixelBuffer(unchecked: width, height: height, bytes: out)
    }

    /// The region cut out of `bytes` (rows of `width`), blurred with three passes of a box blur of
    /// `radius` each way (edges clamped to the region, so nothing outside it leaks in).
    static func blurred(_ bytes: [UInt8], width: Int, region r: PixelRect, radius: Int) -> [UInt8] {
        var a = [Double](repeating: 0, count: r.width * r.height * 3)
        for y in 0..<r.height {
            for x in 0..<r.width {
                for c in 0..<3 { a[3 * (y * r.width + x) + c] = Double(bytes[3 * ((r.y + y) * width + r.x + x) + c]) }
            }
        }
        var b = a
        for _ in 0..<3 {
            boxPass(from: a, to: &b, width: r.width, height: r.height, radius: radius, horizontal: true)
            boxPass(from: b, to: &a, width: r.width, height: r.height, radius: radius, horizontal: false)
        }
        return a.map { UInt8(max(0, min(255, $0.rounded()))) }
    }

    /// One running-sum box blur along rows (or columns), edges clamped.
    private static func boxPass(from a: [Double], to b: inout [Double], width: Int, height: Int, radius: Int, horizontal: Bool) {
        let (lines, length) = horizontal ? (height, width) : (width, height)
        let index = { (line: Int, i: Int) in horizontal ? line * width + i : i * width + line }
        let span = Double(2 * radius + 1)
        for line in 0..<lines {
            for c in 0..<3 {
                var sum = 0.0
                for k in -radius...radius { sum += a[3 * index(line, min(length - 1, max(0, k))) + c] }
                for i in 0..<length {
                    b[3 * index(line, i) + c] = sum / span
                    let leaving = min(length - 1, max(0, i - radius)), entering = min(length - 1, i + radius + 1)
                    sum += a[3 * index(line, entering) + c] - a[3 * index(line, leaving) + c]
                }
            }
        }
    }

    /// The region cut out of `bytes`, each `block` × `block` square its mean colour.
    static func pixelated(_ bytes: [UInt8], width: Int, region r: PixelRect, block: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: r.width * r.height * 3)
        var by = 0
        while by < r.height {
            var bx = 0
            let h = min(block, r.height - by)
            while bx < r.width {
                let w = min(block, r.width - bx)
                var sums = [0, 0, 0]
                for y in by..<(by + h) {
                    for x in bx..<(bx + w) {
                        for c in 0..<3 { sums[c] += Int(bytes[3 * ((r.y + y) * width + r.x + x) + c]) }
                    }
                }
                let mean = sums.map { UInt8($0 / (w * h)) }
                for y in by..<(by + h) {
                    for x in bx..<(bx + w) {
                        for c in 0..<3 { out[3 * (y * r.width + x) + c] = mean[c] }
                    }
                }
                bx += block
            }
            by += block
        }
        return out
    }
}

extension PixelRect {
    /// The part of this rectangle inside an image of `size`, or nil when none of it is.
    public func clipped(to size: PixelSize) -> PixelRect? {
        let left = max(0, x), top = max(0, y)
        let (sumX, overX) = x.addingReportingOverflow(width), (sumY, overY) = y.addingReportingOverflow(height)
        let right = min(size.width, overX ? .max : sumX), bottom = min(size.height, overY ? .max : sumY)
        guard right > left, bottom > top else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
