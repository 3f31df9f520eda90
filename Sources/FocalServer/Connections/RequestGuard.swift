import Focal
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Bounds what one connection may cost before its requests reach a route, and finishes its
/// responses before it closes. One per connection, on its event loop:
///
/// - **Head deadline.** A request head must arrive whole within `headerTimeout`: counted from the
///   connection's opening for its first request and from the first byte for later ones (a byte
///   watcher sits before the HTTP decoder). Past it: 408 with a JSON body, then close (a
///   connection that sent nothing at all is closed without one).
/// - **Declared sizes.** A `Content-Length` over the route's limit (uploads: `maxUploadBytes`;
///   anything else: `maxJSONBytes`) is answered 413 at once, before a byte of body is read. The
///   declared length is reserved on the server's body memory (`ConnectionRegistry`); when that is
///   spent the request is answered 429 (`server.overloaded`, `Retry-After`) at once.
/// - **Body deadline and rate.** A body must arrive whole within `bodyTimeout` of its head, and
///   once it has had `bodyGrace`, at `bodyMinRate` on average; otherwise the connection is closed.
///   A chunked body reserves its memory as it arrives and is closed when it cannot.
/// - **Parser errors** are answered 400 with a JSON body (Hummingbird answers a bare 400), and
///   so are a request with two `Host` headers and an HTTP/1.1 request with none
///   (`HTTP1HeadCheck`, which sits before the HTTP/1 to HTTP types conversion).
/// - **Answer pace.** While the socket takes no more of an answer, its client must have taken it
///   at `answerMinRate` on average once it has had `answerGrace`, and must take some of it at
///   least once every `answerGrace`; otherwise the connection is closed (a client that never reads would keep its answer and its place forever). A
///   connection whose socket has taken nothing for a second is reported as stalled, so that at
///   the connection cap it can be closed to make room (`ConnectionRegistry.evict`), like an idle
///   one; a connection with writes pending is never idle.
/// - **No keep-alive, no wait.** A request that does not keep its connection alive (HTTP/1.0
///   without `Connection: keep-alive`) has its connection closed once its answer is written,
///   rather than held until the next head's deadline.
/// - **Writes finish before a close.** Hummingbird closes a connection that must not be kept
///   (a graceful shutdown, `Connection: close`) right after writing the response's last part,
///   which drops whatever the socket has not taken yet: a large image was cut short. This handler
///   holds such a close until every pending write is done (or `flushTimeout` passes), unless the
///   registry is closing everything.
final class RequestGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Phase {
        /// Between requests, nothing of the next one seen.
        case idle
        /// Reading a head, since then; whether any byte of it has come.
        case head(since: NIODeadline, bytes: Bool)
        /// Reading a body: since its head, bytes so far, the most it may have.
        case body(since: NIODeadline, received: Int, limit: Int)
        /// The request is read; its response is being made.
        case answering
    }

    private let limits: RequestLimits
    private let maxUploadBytes: Int
    private let flushTimeout: TimeAmount
    private let registry: ConnectionRegistry
    private var phase = Phase.idle {
        didSet { reportIdle() }
    }
    private var channel: (any Channel)?
    private var reportedIdle = false
    /// Whether a request has come on this connection.
    private var served = false
    private var started = false
    private var tick: Scheduled<Void>?
    /// Requests whose head has been passed on and whose response has not ended.
    private var open = 0
    /// Body memory this connection holds on the registry.
    private var reserved = 0
    /// Bytes that arrived while a response was being made (the next request, pipelined).
    private var bytesWhileAnswering = false
    /// The response ended while its request's body was still arriving: the body keeps its
    /// deadline, and the connection is between requests once the body ends.
    private var answeredEarly = false
    private var pendingWrites = 0
    /// Body bytes written to the channel that the socket has not taken yet.
    private var pendingBytes = 0
    /// The answer being sent: since its head, and the body bytes the socket has taken.
    private var answer: (since: NIODeadline, sent: Int)?
    /// When the socket last took a write.
    private var lastProgress = NIODeadline.now()
    private var reportedStalled = false
    /// The request being answered does not keep the connection alive.
    private var closeAfterAnswer = false
    /// What `HTTP1HeadCheck` found wrong with the head it passes on next, if anything.
    fileprivate var headProblem: String?
    /// `HTTP1HeadCheck` found that the head it passes on next does not keep the connection alive.
    fileprivate var closeRequested = false
    private var heldClose: EventLoopPromise<Void>?
    private var closing = false

    /// Creates the guard of one connection.
    /// - Parameters:
    ///   - limits: Deadlines, sizes and rates.
    ///   - maxUploadBytes: The largest upload body (`POST /v1/images`).
    ///   - flushTimeout: How long a held close waits for pending writes.
    ///   - registry: The server's connections and body memory.
    init(limits: RequestLimits, maxUploadBytes: Int, flushTimeout: Duration, registry: ConnectionRegistry) {
        self.limits = limits
        self.maxUploadBytes = maxUploadBytes
        self.flushTimeout = Self.amount(flushTimeout)
        self.registry = registry
    }

    // MARK: - Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        channel = context.channel
        registry.add(context.channel)
        // Raw bytes are seen before the HTTP decoder, so a head's deadline starts at its first byte.
        let watcher = ByteWatcher(owner: self, eventLoop: context.eventLoop)
        try? context.pipeline.syncOperations.addHandler(watcher, position: .first)
        // Heads are checked as HTTP/1 sent them, before the conversion keeps one Host and drops the version.
        if let codec = try? context.pipeline.syncOperations.context(handlerType: HTTP1ToHTTPServerCodec.self) {
            try? context.pipeline.syncOperations.addHandler(HTTP1HeadCheck(owner: self), position: .before(codec.handler))
        }
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(context)
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context)
        context.fireChannelInactive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        // The first request's head is timed from the connection's opening.
        phase = .head(since: .now(), bytes: false)
        scheduleTick(context)
    }

    /// Tells the registry whether the connection is idle (between requests, or open with nothing
    /// sent), so that it may be closed to make room at the connection cap.
    private func reportIdle() {
        let isIdle: Bool
        switch phase {
        case .idle, .head(_, false): isIdle = !closing && pendingWrites == 0
        default: isIdle = false
        }
        guard isIdle != reportedIdle, let channel else { return }
        reportedIdle = isIdle
        registry.setIdle(channel, isIdle, served: served)
    }

    private func finish(_ context: ChannelHandlerContext) {
        tick?.cancel()
        tick = nil
        registry.releaseBody(reserved)
        reserved = 0
        registry.remove(context.channel)
        channel = nil
    }

    /// Called by the byte watcher for every read of raw bytes.
    fileprivate func bytesArrived(_ context: ChannelHandlerContext) {
        switch phase {
        case .idle:
            phase = .head(since: .now(), bytes: true)
            scheduleTick(context)
        case let .head(since, false):
            phase = .head(since: since, bytes: true)
        case .answering:
            bytesWhileAnswering = true
        case .head, .body:
            break
        }
    }

    /// Called by the head check for every HTTP/1 request head, before it is converted.
    fileprivate func headArrived(_ head: HTTPRequestHead) {
        let hosts = head.headers["Host"].count
        if hosts > 1 {
            headProblem = "\(hosts) Host headers"
        } else if hosts == 0, head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1) {
            headProblem = "no Host header"
        }
        // After a CONNECT, the HTTP parser reads no further request on the connection (what
        // follows would be a tunnel's bytes): it is closed once answered, not left to time out.
        closeRequested = !head.isKeepAlive || head.method == .CONNECT
    }

    // MARK: - Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            guard !closing else { return }
            if let problem = headProblem {
                headProblem = nil
                refuse(context, ServerError.invalid("the request has \(problem); send exactly one Host header"), reason: "bad_request")
                return
            }
            // A request body's length must be known: Transfer-Encoding ends in chunked, or none.
            if let coding = head.headerFields[.transferEncoding],
                coding.split(separator: ",").last?.trimmingCharacters(in: .whitespaces).lowercased() != "chunked"
            {
                refuse(context, ServerError.invalid("Transfer-Encoding \(coding.excerpt()) does not end in chunked; send Content-Length or chunked"), reason: "bad_request")
                return
            }
            let declared = head.headerFields[.contentLength].flatMap { Int($0) }
            let upload = head.method == .post && (head.path ?? "").split(separator: "?").first == "/v1/images"
            let limit = upload ? maxUploadBytes : limits.maxJSONBytes
            if let declared, declared > limit {
                refuse(context, ServerError(.requestTooLarge, "the body is larger than \(limit) bytes"), reason: "too_large")
                return
            }
            if let declared, declared > 0 {
                guard registry.reserveBody(declared) else {
                    refuse(
                        context, ServerError(.serverOverloaded, "too many request bodies are being received; try again shortly"),
                        reason: "body_memory")
                    return
                }
                reserved += declared
            }
            open += 1
            served = true
            closeAfterAnswer = closeRequested
            closeRequested = false
            let chunked = head.headerFields[.transferEncoding] != nil
            if (declared ?? 0) > 0 || chunked {
                phase = .body(since: .now(), received: 0, limit: limit)
                scheduleTick(context)
            } else {
                phase = .answering
            }
            context.fireChannelRead(data)
        case let .body(buffer):
            if case let .body(since, received, limit) = phase {
                let now = received + buffer.readableBytes
                phase = .body(since: since, received: now, limit: limit)
                if now > limit {
                    drop(context, reason: "too_large")
                    return
                }
                if now > reserved {
                    // A chunked body (or one longer than declared) reserves as it arrives.
                    let more = now - reserved
                    guard registry.reserveBody(more) else {
                        drop(context, reason: "body_memory")
                        return
                    }
                    reserved += more
                }
            }
            context.fireChannelRead(data)
        case .end:
            if case .body = phase {
                if answeredEarly {
                    answeredEarly = false
                    between(context)
                } else {
                    phase = .answering
                }
            }
            context.fireChannelRead(data)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The client closed in the middle of a request: nobody to answer.
        if let error = error as? HTTPParserError, error == .invalidEOFState {
            drop(context, reason: "client_closed")
            return
        }
        // A request that is not HTTP: a JSON 400 when no response is under way, else just close.
        if error is HTTPParserError || error is HTTP1TypeConversionError {
            refuse(context, ServerError.invalid("the request is not valid HTTP/1.1 (\(error)); fix the client"), reason: "bad_request")
            return
        }
        context.fireErrorCaught(error)
    }

    // MARK: - Writing

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        var bytes = 0
        switch part {
        case let .head(head) where head.status.kind != .informational:
            answer = (.now(), 0)
            lastProgress = .now()
        case let .body(buffer):
            bytes = buffer.readableBytes
        default:
            break
        }
        pendingWrites += 1
        pendingBytes += bytes
        let written = promise ?? context.eventLoop.makePromise(of: Void.self)
        written.futureResult.hop(to: context.eventLoop).assumeIsolatedUnsafeUnchecked().whenComplete { [self] _ in
            pendingWrites -= 1
            pendingBytes -= bytes
            if bytes > 0 {
                answer?.sent += bytes
                lastProgress = .now()
                reportStalled(false)
            }
            guard pendingWrites == 0 else { return }
            reportStalled(false)
            reportIdle()
            if let held = heldClose {
                heldClose = nil
                context.close(promise: held)
            }
        }
        var closeNow = false
        if case .end = part, open > 0 {
            open -= 1
            if open == 0 {
                if case .body = phase {
                    // Answered before its body ended (a refusal): the body keeps its deadline.
                    answeredEarly = true
                } else {
                    between(context)
                }
                closeNow = closeAfterAnswer
            }
        }
        context.write(data, promise: written)
        // Checked while writes wait on the socket: the answer's pace.
        if pendingWrites > 0 { scheduleTick(context) }
        if closeNow {
            // Not kept alive: closed once the answer is out (the close is held until then).
            context.flush()
            close(context: context, mode: .all, promise: nil)
        }
    }

    /// Tells the registry whether the socket has taken nothing of pending writes for a second.
    private func reportStalled(_ stalled: Bool) {
        guard stalled != reportedStalled, let channel else { return }
        reportedStalled = stalled
        registry.setStalled(channel, stalled)
    }

    /// Every request on the connection is read and answered: its body memory goes back, and the
    /// next head's deadline starts with its first byte (at once when it has come already).
    private func between(_ context: ChannelHandlerContext) {
        registry.releaseBody(reserved)
        reserved = 0
        if bytesWhileAnswering {
            phase = .head(since: .now(), bytes: true)
            scheduleTick(context)
        } else {
            phase = .idle
        }
        bytesWhileAnswering = false
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, pendingWrites > 0, !registry.isForcing, !registry.isEvicted(context.channel) else {
            context.close(mode: mode, promise: promise)
            return
        }
        // Hold the close until the socket has taken every pending write.
        context.flush()
        let held = heldClose ?? context.eventLoop.makePromise(of: Void.self)
        if let promise { held.futureResult.cascade(to: promise) }
        guard heldClose == nil else { return }
        heldClose = held
        context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: flushTimeout) { [self] in
            guard let stuck = heldClose else { return }
            heldClose = nil
            context.close(promise: stuck)
        }
    }

    // MARK: - Deadlines

    private func scheduleTick(_ context: ChannelHandlerContext) {
        guard tick == nil else { return }
        tick = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: .milliseconds(250)) { [self] in
            tick = nil
            check(context)
        }
    }

    private func check(_ context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        if pendingBytes > 0, let answer {
            // The socket takes no more: the client is not reading as fast as the answer comes.
            if now - lastProgress >= .seconds(1) { reportStalled(true) }
            let elapsed = now - answer.since
            let grace = Self.amount(limits.answerGrace)
            // Nothing taken for a whole grace period: however much the socket took at first.
            if now - lastProgress > grace {
                drop(context, reason: "answer_too_slow")
                return
            }
            if elapsed > grace {
                let seconds = Double((elapsed - grace).nanoseconds) / 1e9
                if Double(answer.sent) < Double(limits.answerMinRate) * seconds {
                    drop(context, reason: "answer_too_slow")
                    return
                }
            }
        }
        switch phase {
        case .idle, .answering:
            if pendingWrites > 0 { scheduleTick(context) }
            return
        case let .head(since, bytes):
            if now - since > Self.amount(limits.headerTimeout) {
                // A connection that never sent a byte is closed without a word (as nginx does:
                // a browser's unused preconnection); a head that came partly is answered 408.
                guard bytes else {
                    drop(context, reason: "idle_timeout")
                    return
                }
                refuse(
                    context,
                    ServerError(.requestTimeout, "no complete request head within \(limits.headerTimeout); send requests promptly"),
                    reason: "header_timeout")
                return
            }
        case let .body(since, received, _):
            let elapsed = now - since
            if elapsed > Self.amount(limits.bodyTimeout) {
                drop(context, reason: "body_timeout")
                return
            }
            let grace = Self.amount(limits.bodyGrace)
            if elapsed > grace {
                let seconds = Double((elapsed - grace).nanoseconds) / 1e9
                if Double(received) < Double(limits.bodyMinRate) * seconds {
                    drop(context, reason: "body_too_slow")
                    return
                }
            }
        }
        scheduleTick(context)
    }

    /// Answers `error` as JSON and closes, when no response is under way on this connection;
    /// otherwise just closes.
    private func refuse(_ context: ChannelHandlerContext, _ error: ServerError, reason: String) {
        guard !closing else { return }
        guard open == 0 else {
            drop(context, reason: reason)
            return
        }
        closing = true
        registry.closedEarly(reason)
        phase = .answering
        let (head, body) = ErrorResponse.parts(for: error)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolatedUnsafeUnchecked().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// Closes the connection at once (a response may be under way: nothing more can be said).
    private func drop(_ context: ChannelHandlerContext, reason: String) {
        guard !closing else { return }
        closing = true
        registry.closedEarly(reason)
        phase = .answering
        context.close(promise: nil)
    }

    static func amount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return .nanoseconds(overflow ? .max : scaled + attoseconds / 1_000_000_000)
    }
}

/// Tells its `RequestGuard` when raw bytes arrive, before the HTTP decoder buffers them.
private final class ByteWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private weak var owner: RequestGuard?
    private var ownerContext: ChannelHandlerContext?

    init(owner: RequestGuard, eventLoop: any EventLoop) {
        self.owner = owner
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let owner, let ownerContext = ownerContext ?? (try? context.pipeline.syncOperations.context(handler: owner)) {
            self.ownerContext = ownerContext
            owner.bytesArrived(ownerContext)
        }
        context.fireChannelRead(data)
    }
}

/// Shows `RequestGuard` each HTTP/1 request head as it was sent: how many `Host` headers and
/// which version, which the conversion to HTTP types does not keep.
private final class HTTP1HeadCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private weak var owner: RequestGuard?

    init(owner: RequestGuard) { self.owner = owner }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case let .head(head) = unwrapInboundIn(data) { owner?.headArrived(head) }
        context.fireChannelRead(data)
    }
}
