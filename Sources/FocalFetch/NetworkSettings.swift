/// How URLs are fetched, and which ones may be.
///
/// The defaults suit a service that fetches URLs its users give: any host, but only public
/// addresses (`AddressPolicy.publicOnly`). To fetch from this machine or a private network,
/// allow those networks:
///
/// ```swift
/// var network = NetworkSettings()
/// network.addressPolicy = try AddressPolicy(allowing: ["10.20.0.0/16"])
/// network.allowedSources = try SourceAllowList(["*.example.com", "https://cdn.example.net/img/"])
/// ```
public struct NetworkSettings: Hashable, Sendable {
    /// Time to open a connection; default 5 s.
    public var connectTimeout: Duration
    /// Longest silence between bytes once connected; default 10 s.
    public var readTimeout: Duration
    /// Time for the whole fetch, redirects and body included; default 30 s.
    public var totalTimeout: Duration
    /// Redirects followed before giving up; default 5. Loops are refused at once.
    public var maxRedirects: Int
    /// The User-Agent header; default "Focal/1".
    public var userAgent: String
    /// The hosts and URL prefixes that may be fetched, redirect targets included; default
    /// empty, which allows any. A URL outside it fails with `fetch.not_allowed`.
    public var allowedSources: SourceAllowList
    /// The addresses that may be connected to. A host name is resolved first and every address
    /// it has is judged before any connection (one refused address refuses the fetch); only an
    /// address that passed is connected to, keeping the Host header and the TLS name; every
    /// redirect is judged the same way, and the address of each connection once more. A refused
    /// address fails with `fetch.address_refused`, the same whether the target is open, closed,
    /// filtered or unreachable. Default `.publicOnly`.
    public var addressPolicy: AddressPolicy

    /// Creates settings; every parameter defaults to the value documented on its property.
    public init(
        connectTimeout: Duration = .seconds(5), readTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30),
        maxRedirects: Int = 5, userAgent: String = "Focal/1", allowedSources: SourceAllowList = SourceAllowList(),
        addressPolicy: AddressPolicy = .publicOnly
    ) {
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.totalTimeout = totalTimeout
        self.maxRedirects = maxRedirects
        self.userAgent = userAgent
        self.allowedSources = allowedSources
        self.addressPolicy = addressPolicy
    }
}
