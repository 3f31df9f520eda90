import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves a host name to every IP address the system resolver (`getaddrinfo`) gives for it,
/// on threads of its own, within a time limit: the first half of the SSRF guard's check of a
/// host name, which `URLLoader` completes by judging every address before it connects to one.
///
/// A lookup blocks its thread for as long as DNS takes, so it never runs on Swift's cooperative
/// pool (two threads wide on a two-core machine). At most `threadLimit` lookups run at once;
/// more wait for a thread, and the wait counts toward their time limit. A lookup whose caller
/// has given up runs to its end on its thread (`getaddrinfo` cannot be interrupted), its answer
/// dropped; one still waiting for a thread is skipped.
///
/// - `HostResolver.system`: `getaddrinfo` for any family and stream sockets, without
///   `AI_ADDRCONFIG` (so every address the name has is seen, IPv4 and IPv6 alike), in the
///   order the resolver sorts them (RFC 6724). A scoped IPv6 address keeps its scope as its
///   zone.
/// - `HostResolver(lookup:)`: answers from a function instead (tests).
struct HostResolver: Sendable {
    /// Why a host name gave no addresses.
    enum Failure: Error, Hashable, CustomStringConvertible {
        /// The time limit passed before the resolver answered.
        case timedOut
        /// The resolver answered without an address: the resolver's words (`gai_strerror`).
        case failed(String)
        /// The caller's task was cancelled.
        case cancelled

        var description: String {
            switch self {
            case .timedOut: "the resolver did not answer in time"
            case let .failed(words): words
            case .cancelled: "cancelled"
            }
        }
    }

    /// Lookups running at once, beyond which more wait for a thread; 16.
    static let threadLimit = 16

    /// The system resolver.
    static let system = HostResolver(lookup: systemLookup)

    /// Answers for a host name, blocking until it has them; run on the resolver's threads.
    let lookup: @Sendable (String) -> Result<[IPAddress], Failure>

    /// A resolver that answers with `lookup`, run on the resolver's threads like `getaddrinfo`.
    init(lookup: @escaping @Sendable (String) -> Result<[IPAddress], Failure>) {
        self.lookup = lookup
    }

    /// The addresses `host` resolves to, each once, in the resolver's order; never empty.
    /// - Parameters:
    ///   - host: A host name, as `URL.host` gives it (no brackets, no NUL).
    ///   - timeout: How long to wait for the answer, waiting for a thread included.
    /// - Throws: `Failure.timedOut` after `timeout`, `.failed` when the name has no address or
    ///   the resolver fails, `.cancelled` when the calling task is cancelled.
    func addresses(of host: String, within timeout: Duration) async throws(Failure) -> [IPAddress] {
        let pending = Pending(host: host, lookup: lookup)
        Self.threads.submit(pending)
        let outcome = await withTaskGroup(of: Result<[IPAddress], Failure>?.self) { group in
            group.addTask { await pending.outcome() }
            group.addTask {
                do {
                    try await Task.sleep(for: timeout)
                    return .failure(.timedOut)
                } catch {
                    return nil
                }
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        pending.abandon()
        guard let outcome else { throw .cancelled }
        let addresses = try outcome.get()
        guard !addresses.isEmpty else { throw .failed("no address") }
        return addresses
    }

    private static let threads = Threads()

    // MARK: - getaddrinfo

    /// `getaddrinfo(host)` for any family and stream sockets: its addresses, each once, in order.
    private static func systemLookup(_ host: String) -> Result<[IPAddress], Failure> {
        guard !host.isEmpty, !host.utf8.contains(0) else { return .failure(.failed("not a host name")) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc) || canImport(Musl)
        hints.ai_socktype = Int32(clamping: SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else {
            let words = gai_strerror(status).map { String(cString: $0) } ?? "error \(status)"
            return .failure(.failed(status == EAI_SYSTEM ? "\(words) (errno \(errno))" : words))
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var node = list
        while let current = node {
            if let address = address(of: current.pointee), !addresses.contains(address) { addresses.append(address) }
            node = current.pointee.ai_next
        }
        return .success(addresses)
    }

    /// The address of one `getaddrinfo` answer; nil for a family other than IPv4 and IPv6.
    ///
    /// Read by offset from the socket address's bytes, whose layout the kernel's ABI fixes
    /// (`sockaddr_in`: the address at byte 4, 16 bytes in all; `sockaddr_in6`: the address at
    /// byte 8, the scope at byte 24, 28 bytes in all), rather than through the C structs' fields,
    /// which Swift's release builds see through another module.
    private static func address(of info: addrinfo) -> IPAddress? {
        guard let socketAddress = info.ai_addr else { return nil }
        let length = Int(info.ai_addrlen)
        let raw = UnsafeRawBufferPointer(start: UnsafeRawPointer(socketAddress), count: max(0, length))
        switch info.ai_family {
        case AF_INET where length >= 16:
            return IPAddress(bytes: Array(raw[4..<8]))
        case AF_INET6 where length >= 28:
            let scope = raw.loadUnaligned(fromByteOffset: 24, as: UInt32.self)
            return IPAddress(bytes: Array(raw[8..<24]), zone: scope == 0 ? nil : String(scope))
        default:
            return nil
        }
    }

    // MARK: - Threads

    /// One lookup: its host, its answer once known, and the caller waiting for it.
    private final class Pending: Sendable {
        let host: String
        let lookup: @Sendable (String) -> Result<[IPAddress], Failure>

        private struct State {
            var outcome: Result<[IPAddress], Failure>?
            var waiter: CheckedContinuation<Result<[IPAddress], Failure>?, Never>?
            var abandoned = false
        }
        private let state = Mutex(State())

        init(host: String, lookup: @escaping @Sendable (String) -> Result<[IPAddress], Failure>) {
            self.host = host
            self.lookup = lookup
        }

        /// Whether the caller has given up, so the lookup need not run.
        var isAbandoned: Bool { state.withLock { $0.abandoned } }

        /// Runs the lookup and hands its answer to the caller, unless the caller gave up.
        func run() {
            guard !isAbandoned else { return }
            let outcome = lookup(host)
            let waiter = state.withLock { state in
                state.outcome = outcome
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: outcome)
        }

        /// The answer, once the lookup has run; nil when the calling task is cancelled first.
        func outcome() async -> Result<[IPAddress], Failure>? {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let ready: Result<[IPAddress], Failure>?? = state.withLock { state in
                        if let outcome = state.outcome { return .some(outcome) }
                        if state.abandoned { return .some(nil) }
                        state.waiter = continuation
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                abandon()
            }
        }

        /// Gives up on the answer: a caller still waiting gets nil.
        func abandon() {
            let waiter = state.withLock { state in
                state.abandoned = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// The lookup threads: started as lookups arrive, up to `threadLimit`, each running lookups
    /// from the queue until it is empty.
    private final class Threads: Sendable {
        private struct State {
            var queue: [Pending] = []
            var running = 0
        }
        private let state = Mutex(State())

        func submit(_ pending: Pending) {
            let start = state.withLock { state in
                state.queue.append(pending)
                guard state.running < HostResolver.threadLimit else { return false }
                state.running += 1
                return true
            }
            if start { Thread { [self] in work() }.start() }
        }

        private func work() {
            // Named here, for debugging: on Linux a name given before `start()` is not applied.
            Thread.current.name = "focal-resolver"
            while let next = take() { next.run() }
        }

        /// The next lookup still wanted, or nil (and this thread no longer counted) when none is.
        private func take() -> Pending? {
            state.withLock { state in
                while !state.queue.isEmpty {
                    let next = state.queue.removeFirst()
                    if !next.isAbandoned { return next }
                }
                state.running -= 1
                return nil
            }
        }
    }
}
