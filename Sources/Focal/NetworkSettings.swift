/// How URLs are fetched.
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

    /// Creates settings; every parameter defaults to the value documented on its property.
    public init(
        connectTimeout: Duration = .seconds(5), readTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30),
        maxRedirects: Int = 5, userAgent: String = "Focal/1"
    ) {
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.totalTimeout = totalTimeout
        self.maxRedirects = maxRedirects
        self.userAgent = userAgent
    }
}
