public import Foundation

/// Walks a GIF's blocks (extensions, images, the trailer) without decoding any: libnsgif stops
/// counting frames at the first block it cannot read and shows the ones before, so a file cut or
/// garbled in the middle would come out as a shorter animation. The walk tells how many frames the
/// file holds and whether its blocks are whole.
public enum GIFBlocks {
    /// What the walk found.
    public struct Layout: Hashable, Sendable {
        /// Image descriptors read whole (each is a frame).
        public var frames: Int
        /// Whether every block was whole up to the trailer (or to the end of the data, at a block's
        /// boundary, as many encoders leave it).
        public var intact: Bool
    }

    /// Walks `data`; nil when it does not start as a GIF.
    public static func read(_ data: Data) -> Layout? {
        data.withUnsafeBytes { raw -> Layout? in
            let b = raw.bindMemory(to: UInt8.self)
            let n = b.count
            guard n >= 13, b[0] == 0x47, b[1] == 0x49, b[2] == 0x46 else { return nil }
            var at = 13
            // A global colour table: 3 × 2^(size + 1) bytes.
            if b[10] & 0x80 != 0 { at += 3 << (Int(b[10] & 0x07) + 1) }
            var frames = 0
            /// Skips data sub-blocks (a length byte, that many bytes) up to the empty one; false when
            /// they run past the end.
            func skipSubBlocks() -> Bool {
                while at < n {
                    let length = Int(b[at])
                    at += 1
                    if length == 0 { return true }
                    at += length
                }
                return false
            }
            while at < n {
                switch b[at] {
                case 0x3B:
                    return Layout(frames: frames, intact: true)
                case 0x21:
                    at += 2
                    guard at <= n, skipSubBlocks() else { return Layout(frames: frames, intact: false) }
                case 0x2C:
                    guard n - at >= 10 else { return Layout(frames: frames, intact: false) }
                    let packed = b[at + 9]
                    at += 10
                    if packed & 0x80 != 0 { at += 3 << (Int(packed & 0x07) + 1) }
                    // The LZW code size, then the image data.
                    at += 1
                    guard at <= n, skipSubBlocks() else { return Layout(frames: frames, intact: false) }
                    frames += 1
                default:
                    return Layout(frames: frames, intact: false)
                }
            }
            return Layout(frames: frames, intact: at == n)
        }
    }
}
