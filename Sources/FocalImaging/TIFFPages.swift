public import Foundation

/// Counts the pages of a TIFF by following its chain of directories: one file can hold hundreds
/// of thousands, and libvips reads them all, each time it reads the header, before any pixel.
public enum TIFFPages {
    /// The number of whole image file directories in `data` (classic TIFF or BigTIFF), counting
    /// no further than `limit + 1`: a chain that loops counts as longer than any limit. A chain
    /// that leads outside the data ends there (libtiff reports the damage when it reads it).
    public static func count(in data: Data, limit: Int) -> Int {
        data.withUnsafeBytes { raw -> Int in
            let b = raw.bindMemory(to: UInt8.self)
            let n = b.count
            guard n >= 8, b[0] == b[1], b[0] == 0x49 || b[0] == 0x4D else { return 0 }
            let little = b[0] == 0x49
            func read(_ at: Int, _ size: Int) -> UInt64? {
                guard at >= 0, size <= 8, at <= n - size else { return nil }
                var value: UInt64 = 0
                for k in 0..<size { value |= UInt64(b[at + (little ? k : size - 1 - k)]) << (8 * UInt64(k)) }
                return value
            }
            guard let version = read(2, 2) else { return 0 }
            let big = version == 43
            let (entrySize, countSize, offsetSize) = big ? (20, 8, 8) : (12, 2, 4)
            var offset = read(big ? 8 : 4, offsetSize) ?? 0
            var pages = 0
            while offset != 0, pages <= limit {
                guard offset < UInt64(n), let entries = read(Int(offset), countSize), entries < UInt64(n) else { break }
                let next = Int(offset) + countSize + Int(entries) * entrySize
                guard let following = read(next, offsetSize) else { break }
                pages += 1
                offset = following
            }
            return pages
        }
    }
}
