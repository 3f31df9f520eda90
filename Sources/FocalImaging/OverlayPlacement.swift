public import FocalCore

/// Where an image laid over an output covers it: each copy's top-left corner on each axis, and
/// every covered pixel of every copy. `watermark(…)` and `image(…)` lay their images through it.
enum OverlayPlacement {
    /// Calls `body` for every pixel of an overlay of `side` laid with its top-left corner at each
    /// of `xs` × `ys` that falls inside an output of `output`: the pixel's index in the overlay
    /// and in the output (row by row, a pixel each, not bytes), copies in `ys` then `xs` order.
    static func forEachCovered(xs: [Int], ys: [Int], side: PixelSize, output: PixelSize, _ body: (_ overlay: Int, _ output: Int) -> Void) {
        for top in ys {
            for left in xs {
                for sy in 0..<side.height {
                    let oy = top + sy
                    guard oy >= 0, oy < output.height else { continue }
                    for sx in 0..<side.width {
                        let ox = left + sx
                        guard ox >= 0, ox < output.width else { continue }
                        body(sy * side.width + sx, oy * output.width + ox)
                    }
                }
            }
        }
    }
}
