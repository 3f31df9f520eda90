import Foundation
import Synchronization

/// The memory that image answers hold while they are being sent, across every connection,
/// bounded like request bodies (`ConnectionRegistry`) and jobs (the admission gate).
///
/// An answer's encoded bytes stay alive until the socket has taken the last of them: a client
/// that never reads would otherwise pin a whole copy for as long as it keeps the connection. So
/// an answer is streamed in small pieces (`AnswerBody`: only what the socket has not taken,
/// about one piece and the channel's write buffer, is copied per connection), and the bytes it
/// references are reserved here from the moment the answer is made until it is written or its
/// connection closes. Answers that share one storage (the same cached result sent to many
/// clients, or identical requests that shared one job) are counted once, because they hold
/// one copy. Past `budget`, a new answer is refused (`server.answers_full`, 503 with
/// `Retry-After`) instead of held; slow readers are closed by their connection's answer pace
/// (`RequestGuard`), which gives their bytes back.
final class AnswerMemory: Sendable {
    /// The most bytes answers in flight may hold together.
    let budget: Int
    private let state = Mutex(State())

    private struct State {
        /// Bytes held now, each storage once.
        var bytes = 0
        /// Holders of each storage: how many answers, and its size.
        var storages: [UInt: (holders: Int, bytes: Int)] = [:]
        /// Answers refused so far.
        var refused = 0
        /// The next key of an answer too small to share storage (odd: storage addresses are even).
        var nextUnshared: UInt = 1
    }

    /// Answers under this size may be stored inline in their `Data`, whose address then names no
    /// storage: each counts on its own.
    static let sharedAbove = 1024

    /// Creates a ledger.
    /// - Parameter budget: The bytes answers in flight may hold together (at least 1 MiB).
    init(budget: Int) { self.budget = max(1 << 20, budget) }

    /// Bytes held now, answers in flight, and answers refused so far.
    var usage: (bytes: Int, answers: Int, refused: Int) {
        state.withLock { state in (state.bytes, state.storages.values.reduce(0) { $0 + $1.holders }, state.refused) }
    }

    /// Whether the answers in flight hold the whole budget now: a new request's answer could not be
    /// sent, so it is not worth making.
    var isFull: Bool { state.withLock { $0.bytes >= budget } }

    /// Reserves what sending `data` holds, or nil when the budget cannot take it. Bytes whose
    /// storage another answer holds already cost nothing more. A first answer is always let
    /// through when nothing else is held, so that one answer within the output limits is never
    /// refused by an idle server.
    func hold(_ data: Data) -> Hold? {
        let size = data.count
        // The address of the bytes names their storage: copies of one `Data` share it.
        let address = size > Self.sharedAbove ? data.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) } : 0
        let admitted = state.withLock { state -> UInt? in
            var storage = address
            if storage == 0 {
                storage = state.nextUnshared
                state.nextUnshared &+= 2
            }
            if var entry = state.storages[storage] {
                entry.holders += 1
                state.storages[storage] = entry
                return storage
            }
            let (total, overflow) = state.bytes.addingReportingOverflow(size)
            guard !overflow, total <= budget || state.bytes == 0 else {
                state.refused += 1
                return nil
            }
            state.bytes = total
            state.storages[storage] = (1, size)
            return storage
        }
        return admitted.map { Hold(memory: self, storage: $0, data: data) }
    }

    fileprivate func release(_ storage: UInt) {
        state.withLock { state in
            guard var entry = state.storages[storage] else { return }
            entry.holders -= 1
            if entry.holders > 0 {
                state.storages[storage] = entry
            } else {
                state.storages[storage] = nil
                state.bytes = max(0, state.bytes - entry.bytes)
            }
        }
    }

    /// One answer's reservation, and the bytes it keeps alive; given back once, when it is
    /// released or dropped (an answer never written, such as a `HEAD`, releases when its body is
    /// dropped).
    final class Hold: Sendable {
        private let memory: AnswerMemory
        private let storage: UInt
        private let released = Atomic(false)
        /// The bytes being sent.
        let data: Data

        fileprivate init(memory: AnswerMemory, storage: UInt, data: Data) {
            self.memory = memory
            self.storage = storage
            self.data = data
        }

        /// Gives the reservation back.
        func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            memory.release(storage)
        }

        deinit { release() }
    }
}
