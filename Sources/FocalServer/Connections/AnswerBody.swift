import Foundation
import Hummingbird
import NIOCore

/// An answer's body, written in 16 KiB pieces as the socket takes them: each piece is copied from the
/// shared bytes only when the channel can take more, so a connection holds about one piece and
/// its channel's write buffer, never a copy of the whole answer. (Hummingbird's writer waits
/// while the channel is not writable, but it learns so on the event loop: a loop that writes
/// without waiting would hand over every piece first. So after every 64 KiB the body waits for a
/// turn of the connection's event loop, by which time those pieces have reached the socket and
/// the channel's writability is known.) The reservation on `AnswerMemory` is given back when the last piece is
/// written, when the connection fails, or when the body is dropped unwritten.
enum AnswerBody {
    /// The size of one piece: what a reader at the slowest pace allowed (16 KiB/s) takes in a
    /// second, so that its connection is never taken for stalled (no piece taken for a second).
    static let piece = 16 << 10

    /// Pieces handed over between turns of the event loop: 64 KiB, the channel's write buffer.
    static let piecesPerTurn = 4

    /// A body that streams `hold`'s bytes.
    /// - Parameters:
    ///   - hold: The bytes and their reservation.
    ///   - eventLoop: The connection's event loop.
    static func make(_ hold: AnswerMemory.Hold, eventLoop: any EventLoop) -> ResponseBody {
        ResponseBody(contentLength: hold.data.count) { writer in
            defer { hold.release() }
            let data = hold.data
            var offset = data.startIndex
            var written = 0
            while offset < data.endIndex {
                let end = data.index(offset, offsetBy: Self.piece, limitedBy: data.endIndex) ?? data.endIndex
                var buffer = ByteBufferAllocator().buffer(capacity: end - offset)
                buffer.writeBytes(data[offset..<end])
                try await writer.write(buffer)
                offset = end
                written += 1
                if offset < data.endIndex, written % Self.piecesPerTurn == 0 { try await eventLoop.submit {}.get() }
            }
            try await writer.finish(nil)
        }
    }
}
