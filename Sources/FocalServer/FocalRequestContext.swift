public import Hummingbird
public import NIOCore

/// The context every route sees: Hummingbird's, and the address the connection came from (for
/// `/metrics`, which answers only the networks `ServerConfiguration.metricsNetworks` names).
public struct FocalRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's address; nil when there is no socket (tests that drive the router directly).
    public let remoteAddress: SocketAddress?
    /// The connection's event loop, which answers wait on between their pieces (`AnswerBody`).
    let eventLoop: any EventLoop

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        eventLoop = source.channel.eventLoop
    }
}
