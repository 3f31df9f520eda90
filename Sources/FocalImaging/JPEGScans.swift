public import Foundation

/// Counts the scans of a JPEG by walking its markers: a progressive JPEG normally has about 10,
/// but one can repeat a tiny scan millions of times and take minutes to decode.
public enum JPEGScans {
    /// The number of start-of-scan markers in `data`, counting no further than `limit + 1`.
    /// Entropy-coded data is skipped as the standard lays it out (0xFF is followed by 0x00 or a
    /// restart marker inside it), so bytes in metadata segments are never mistaken for markers.
    public static func count(in data: Data, limit: Int) -> Int {
        data.withUnsafeBytes { raw -> Int in
            let b = raw.bindMemory(to: UInt8.self)
            let n = b.count
            guard n >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return 0 }
            var i = 2, scans = 0
            while i + 1 < n {
                guard b[i] == 0xFF else {
                    i += 1
                    continue
                }
                let marker = b[i + 1]
                if marker == 0xFF {
                    i += 1
                    continue
                }
                if marker == 0xD9 { break }
                if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                    i += 2
                    continue
                }
                guard i + 3 < n else { break }
                let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
                i += 2 + length
                if marker == 0xDA {
                    scans += 1
                    if scans > limit { return scans }
                    // Skip the entropy-coded data up to the next real marker.
                    while i + 1 < n, !(b[i] == 0xFF && b[i + 1] != 0 && !(0xD0...0xD7).contains(b[i + 1])) { i += 1 }
                }
            }
            return scans
        }
    }
}
