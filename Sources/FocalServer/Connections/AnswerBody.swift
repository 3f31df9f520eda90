import Foundation
import Hummingbird
import NIOCore

/// An answer's body, written in pieces as the socket takes them: each piece is copied from the
/// shared bytes only when the channel can take more, so a connection holds about one piece and
/// its channel's write buffer, never a copy of the whole answer. (Hummingbird's writer waits
/// while the channel is not writable, but it learns so on the event loop: a loop that writes
/// without waiting would hand over every piece first. So after each piece the body waits for a
/// turn of the connection's event loop, by which time that piece has reached the socket and the
/// channel's writability is known.) The reservation on `AnswerMemory` is given back when the last piece is
/// written, when the connection fails, or when the body is dropped unwritten.
enum AnswerBody {
    /// The size of one piece.
    static let piece = 64 << 10

    /// A body that streams `hold`'s bytes.
    /// - Parameters:
    ///   - hold: The bytes and their reservation.
    ///   - eventLoop: The connection's event loop.
    static func make(_ hold: AnswerMemory.Hold, eventLoop: any EventLoop) -> ResponseBody {
        ResponseBody(contentLength: hold.data.count) { writer in
            defer { hold.release() }
            let data = hold.data
            var offset = data.startIndex
            while offset < data.endIndex {
                let end = data.index(offset, offsetBy: Self.piece, limitedBy: data.endIndex) ?? data.endIndex
                var buffer = ByteBufferAllocator().buffer(capacity: end - offset)
                buffer.writeBytes(data[offset..<end])
                try await writer.write(buffer)
                offset = end
                if offset < data.endIndex { try await eventLoop.submit {}.get() }
            }
            try await writer.finish(nil)
        }
    }
}
