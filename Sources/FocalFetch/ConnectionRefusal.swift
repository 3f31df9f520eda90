import NIOCore

/// The error that fails a new connection whose remote address the `AddressPolicy` refuses.
///
/// AsyncHTTPClient hands it to the request that was waiting for the connection; `URLLoader`
/// turns it into `FetchError` `fetch.address_refused`.
struct ConnectionRefusal: Error, CustomStringConvertible {
    /// The address connected, as NIO prints it (or a note that it is unknown).
    let address: String
    /// Why the policy refused it; nil when the address could not be read at all.
    let refusal: AddressRefusal?

    var description: String { refusal.map(\.description) ?? "\(address) cannot be judged" }

    /// Judges the remote address of a newly opened `channel`: a succeeded future when the
    /// policy allows it, else a failed one (and the channel closed) before any request is sent.
    /// An address that cannot be read is refused.
    static func check(_ channel: any Channel, against policy: AddressPolicy) -> EventLoopFuture<Void> {
        let remote = channel.remoteAddress
        let text = remote?.ipAddress
        let refusal: ConnectionRefusal
        if let text, let address = IPAddress(text) {
            guard let refused = policy.refusal(for: address) else { return channel.eventLoop.makeSucceededVoidFuture() }
            refusal = ConnectionRefusal(address: text, refusal: refused)
        } else {
            refusal = ConnectionRefusal(address: remote.map { "\($0)" } ?? "unknown", refusal: nil)
        }
        // AsyncHTTPClient drops the connection when this future fails and ignores its closing
        // afterwards; closing it first would report a connection it has not yet counted.
        channel.eventLoop.execute { channel.close(promise: nil) }
        return channel.eventLoop.makeFailedFuture(refusal)
    }
}
