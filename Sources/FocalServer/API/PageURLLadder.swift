/// The sizes `/v1/page-urls` signs: a fixed ladder, so that anyone may have the page's own URLs
/// signed without being able to ask for millions of distinct renders of one photo.
///
/// - A frame's long side is one of `sides`, and its short side the long one times p/q, rounded,
///   for a ratio p:q in lowest terms of at most 32 each (`<focal-img ladder>` sizes its requests
///   so): 13 long sides times a few hundred shapes.
/// - A preview (`fit-in/SxS`) is one of `previewSides`.
enum PageURLLadder {
    /// The long sides of frames.
    static let sides = [24, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048]
    /// The sides of previews: 200 to 2000 in steps of 200.
    static let previewSides = Array(stride(from: 200, through: 2000, by: 200))
    /// The largest term of a ratio.
    static let maxTerm = 32

    /// Whether a frame of `width` × `height` is on the ladder.
    static func allows(width: Int, height: Int) -> Bool {
        let long = max(width, height), short = min(width, height)
        guard sides.contains(long), short >= 1 else { return false }
        for q in 1...maxTerm {
            for p in 1...q where gcd(p, q) == 1 {
                if Int((Double(long) * Double(p) / Double(q)).rounded()) == short { return true }
            }
        }
        return false
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
