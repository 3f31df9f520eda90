/// What one connection and one request may cost `focal serve` before they are read: time to
/// send a request head and a body, the size and total memory of bodies, the number of open
/// connections, the memory and pace of answers. The image limits (`ImageLimits`) and the job gate (`FocalConfiguration.maxJobs`,
/// `memoryBudget`) take over once a request is read.
public struct RequestLimits: Sendable, Hashable {
    /// Time to send a complete request head: from the connection's opening for its first
    /// request, from the first byte for later ones; default 10 s. Past it: 408 and the
    /// connection is closed. (Between requests, an idle keep-alive connection is closed after
    /// 75 s.)
    public var headerTimeout: Duration
    /// Time to send a whole request body, from its head; default 30 s. Past it the connection is
    /// closed. A request is therefore read within `headerTimeout + bodyTimeout`, and answered
    /// within `requestTimeout` after that.
    public var bodyTimeout: Duration
    /// The slowest a body may arrive, in bytes a second on average, once it has had
    /// `bodyGrace`; default 16 KiB/s. A slower body's connection is closed.
    public var bodyMinRate: Int
    /// How long a body may arrive slower than `bodyMinRate`; default 5 s.
    public var bodyGrace: Duration
    /// The largest JSON body (`/v1/plan`, `/v1/detect`, `/v1/sign`, saved crops); default 1 MiB
    /// (`focal serve --max-json-bytes`). Uploads are bounded by `ServerConfiguration.maxBodyBytes`.
    public var maxJSONBytes: Int
    /// The bytes of request bodies being read or held, across every connection; default 128 MiB.
    /// A request whose declared `Content-Length` would pass it is answered 429 at once; a chunked
    /// body that passes it has its connection closed.
    public var maxBodyMemory: Int
    /// The bytes image answers being sent may hold, across every connection, each stored answer
    /// counted once however many clients it goes to; default 256 MiB (`focal serve
    /// --answer-memory`). Past it a new answer is refused with 503 (`server.answers_full`).
    public var maxAnswerMemory: Int
    /// The slowest a client may take its answer, in bytes a second on average, once it has had
    /// `answerGrace` and while the socket takes no more; default 16 KiB/s. A slower reader's
    /// connection is closed, giving back what its answer held.
    public var answerMinRate: Int
    /// How long an answer may be taken slower than `answerMinRate`, and the longest the socket
    /// may take none of it while some waits; default 10 s.
    public var answerGrace: Duration
    /// Open connections at once; default nil: three quarters of the file descriptors this process
    /// may open, less 256 kept for files, fetches and the database, and at most 16,384. Past it,
    /// new connections wait in the listen backlog (and are refused by the system once that is
    /// full); nothing spins.
    public var maxConnections: Int?
    /// The most paths one `/v1/sign` request may sign; default 256 (`focal serve --max-sign-paths`).
    public var maxSignPaths: Int
    /// The most frames one `/v1/plan` request may ask for; default 32 (`focal serve --max-frames`).
    public var maxFrames: Int

    /// Creates limits; every parameter defaults to the value documented on its property.
    public init(
        headerTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(30), bodyMinRate: Int = 16 << 10,
        bodyGrace: Duration = .seconds(5), maxJSONBytes: Int = 1 << 20, maxBodyMemory: Int = 128 << 20,
        maxConnections: Int? = nil, maxSignPaths: Int = 256, maxFrames: Int = 32, maxAnswerMemory: Int = 256 << 20,
        answerMinRate: Int = 16 << 10, answerGrace: Duration = .seconds(10)
    ) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.bodyMinRate = max(0, bodyMinRate)
        self.bodyGrace = bodyGrace
        self.maxJSONBytes = max(1, maxJSONBytes)
        self.maxBodyMemory = max(1 << 20, maxBodyMemory)
        self.maxConnections = maxConnections.map { max(1, $0) }
        self.maxSignPaths = max(1, maxSignPaths)
        self.maxFrames = max(1, maxFrames)
        self.maxAnswerMemory = max(1 << 20, maxAnswerMemory)
        self.answerMinRate = max(0, answerMinRate)
        self.answerGrace = answerGrace
    }

    /// The connection cap in force: `maxConnections`, or one sized from the file-descriptor
    /// limit `descriptors` (the soft `RLIMIT_NOFILE`).
    public func connectionCap(descriptors: Int) -> Int {
        if let maxConnections { return maxConnections }
        let usable = max(0, descriptors - 256) / 4 * 3
        return min(16_384, max(16, usable))
    }
}
