public import FocalCore

extension PixelBuffer {
    /// The buffer with each pixel's red, green and blue replaced by `change`'s (given as whole
    /// numbers, clamped to 0-255 afterwards, as thumbor's filters clamp).
    func mappingEachPixel(_ change: (inout Int, inout Int, inout Int) -> Void) -> PixelBuffer {
        var out = bytes
        out.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i + 2 < p.count {
                var (r, g, b) = (Int(p[i]), Int(p[i + 1]), Int(p[i + 2]))
                change(&r, &g, &b)
                p[i] = UInt8(clamping: r)
                p[i + 1] = UInt8(clamping: g)
                p[i + 2] = UInt8(clamping: b)
                i += 3
            }
        }
        return PixelBuffer(unchecked: width, height: height, bytes: out)
    }

    /// The buffer with every byte looked up in `table` (one table per channel, 256 entries each).
    func lookingUp(red: [UInt8], green: [UInt8], blue: [UInt8]) -> PixelBuffer {
        var out = bytes
        out.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i + 2 < p.count {
                p[i] = red[Int(p[i])]
                p[i + 1] = green[Int(p[i + 1])]
                p[i + 2] = blue[Int(p[i + 2])]
                i += 3
            }
        }
        return PixelBuffer(unchecked: width, height: height, bytes: out)
    }
}
