import Focal
import Foundation
import FocalTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The no-oracle guarantee on a private address, not only loopback: in a network namespace the
/// test makes itself (root and `ip netns` needed, else skipped), a name from the namespace's own
/// hosts file points at 10.213.7.1 on a veth interface inside it. `focal crop --public-only`,
/// run inside, answers an open, a closed and a filtered port there alike and connects to none;
/// without `--public-only` it fetches the same name, so the name does resolve there.
///
/// No packet leaves the namespace: it has no route out, and its resolv.conf names only its own
/// loopback (the hosts file answers first anyway).
extension NetworkTests {
    @Test(
        "in a namespace of the test's own, an open, a closed and a filtered port on a private address answer focal --public-only alike",
        .enabled(if: NetworkNamespace.isAvailable, "needs root and a working `ip netns` (NetworkNamespace.isAvailable)"))
    func privateAddressInNamespace() async throws {
        let namespace = try await NetworkNamespace.make(hosts: ["internal.focal.test": "10.213.7.1"], address: "10.213.7.1/24")
        do {
            try await privateAddressChecks(in: namespace)
            await namespace.remove()
        } catch {
            await namespace.remove()
            throw error
        }
    }

    private func privateAddressChecks(in namespace: NetworkNamespace) async throws {
        let image = try LoopbackServer.fixture("astronaut.png")
        let (open, filtered, closedPort) = try namespace.inside {
            let open = try CountingListener(serving: image, host: "10.213.7.1")
            let filtered = try CountingListener(serving: nil, host: "10.213.7.1", backlog: 1)
            filtered.prefill(8)
            // Bound, then closed: nothing else in the namespace takes the port, so it refuses.
            let closing = try CountingListener(serving: nil, host: "10.213.7.1")
            closing.stop()
            return (open, filtered, closing.port)
        }
        defer {
            open.stop()
            filtered.stop()
        }
        for host in ["internal.focal.test", "10.213.7.1"] {
            var errors: [String] = []
            for port in [open.port, closedPort, filtered.port] {
                let url = "http://\(host):\(port)/astronaut.png"
                let run = try await namespace.focal(["crop", url, "--size", "64x64", "--json", "--public-only"])
                #expect(run.status == 1, "\(run.stderr)")
                let object = try #require(run.objects.first, "no JSON line: \(run.stdout) \(run.stderr)")
                #expect(object["code"] as? String == "fetch.address_refused", "\(object)")
                let error = try #require(object["error"] as? String)
                errors.append(error.replacingOccurrences(of: ":\(port)/", with: ":PORT/"))
            }
            #expect(Set(errors).count == 1, "the answers differ between ports: \(errors)")
            #expect(errors.first?.contains("10.213.7.1 is a private address") == true, "\(errors)")
        }
        #expect(open.accepted == 0, "the open port was connected to")
        #expect(filtered.foreignConnections() == 0, "the filtered port was connected to")

        // The same name, every address allowed: fetched, so it did resolve inside.
        let allowed = try await namespace.focal(["crop", "http://internal.focal.test:\(open.port)/astronaut.png", "--size", "64x64", "--json"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(open.accepted == 1)
        #expect(open.hostHeaders == ["internal.focal.test:\(open.port)"])
    }
}

/// A network namespace made for one test: loopback up, a veth pair with an address, its own
/// hosts file and resolv.conf (`ip netns exec` puts /etc/netns/NAME/* over /etc/*). Removed by
/// `remove()`.
struct NetworkNamespace: Sendable {
    let name: String
    /// Whether /etc/netns was there before, so that `remove()` leaves it as found.
    private let hadFolder = FileManager.default.fileExists(atPath: "/etc/netns")

    /// `ip`, where Debian puts it.
    static let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether this process may make namespaces: root, `ip` present, and a trial namespace made
    /// and removed.
    static let isAvailable: Bool = {
        #if canImport(Glibc)
        guard getuid() == 0, let ip else { return false }
        let trial = "focal-trial-\(getpid())"
        guard runBlocking(ip, ["netns", "add", trial]) == 0 else { return false }
        return runBlocking(ip, ["netns", "del", trial]) == 0
        #else
        return false
        #endif
    }()

    /// Makes a namespace with `address` (CIDR) on a veth interface and `hosts` in its hosts file.
    static func make(hosts: [String: String], address: String) async throws -> NetworkNamespace {
        guard let ip else { throw LoopbackError("no ip command") }
        let namespace = NetworkNamespace(name: "focal-ssrf-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let folder = "/etc/netns/\(namespace.name)"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let lines = ["127.0.0.1 localhost"] + hosts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            try (lines.joined(separator: "\n") + "\n").write(toFile: folder + "/hosts", atomically: true, encoding: .utf8)
            try "nameserver 127.0.0.1\n".write(toFile: folder + "/resolv.conf", atomically: true, encoding: .utf8)
            let steps: [[String]] = [
                ["netns", "add", namespace.name],
                ["-n", namespace.name, "link", "set", "lo", "up"],
                ["-n", namespace.name, "link", "add", "fv0", "type", "veth", "peer", "name", "fv1"],
                ["-n", namespace.name, "addr", "add", address, "dev", "fv0"],
                ["-n", namespace.name, "link", "set", "fv0", "up"],
                ["-n", namespace.name, "link", "set", "fv1", "up"],
            ]
            for step in steps {
                let run = try await Run(step, executable: ip)
                guard run.status == 0 else { throw LoopbackError("ip \(step.joined(separator: " ")) failed: \(run.stderr)") }
            }
        } catch {
            await namespace.remove()
            throw error
        }
        return namespace
    }

    /// Runs `focal` with `arguments` inside the namespace.
    func focal(_ arguments: [String]) async throws -> Run {
        guard let ip = Self.ip else { throw LoopbackError("no ip command") }
        return try await Run(["netns", "exec", name, Checkout.focal] + arguments, executable: ip)
    }

    /// Runs `body` on a thread of its own that has entered the namespace, so that the sockets
    /// it makes live there.
    func inside<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        #if canImport(Glibc)
        let result = NamespaceOutcome<T>()
        let done = DispatchSemaphore(value: 0)
        let path = "/run/netns/\(name)"
        Thread {
            defer { done.signal() }
            let descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else {
                result.set(.failure(LoopbackError("cannot open \(path): errno \(errno)")))
                return
            }
            defer { _ = close(descriptor) }
            // CLONE_NEWNET: this thread alone moves into the namespace; it ends afterwards.
            guard let enter = Self.setns, enter(descriptor, 0x4000_0000) == 0 else {
                result.set(.failure(LoopbackError("setns failed: errno \(errno)")))
                return
            }
            result.set(Result { try body() })
        }.start()
        done.wait()
        guard let outcome = result.get() else { throw LoopbackError("the namespace thread gave nothing") }
        return try outcome.get()
        #else
        throw LoopbackError("network namespaces need Linux")
        #endif
    }

    #if canImport(Glibc)
    /// glibc's `setns`, which Swift does not see without `_GNU_SOURCE`; nil if not found.
    private static let setns: (@convention(c) (Int32, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else { return nil }  // RTLD_DEFAULT
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()
    #endif

    /// Deletes the namespace and its files under /etc/netns.
    func remove() async {
        if let ip = Self.ip { _ = try? await Run(["netns", "del", name], executable: ip) }
        try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
        if !hadFolder { _ = rmdir("/etc/netns") }  // only if empty: another test's namespace may be there
    }

    /// Runs a command and waits on the calling thread; its exit status, or -1 if it did not start.
    private static func runBlocking(_ executable: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return -1
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// What the namespace thread hands back.
private final class NamespaceOutcome<T: Sendable>: Sendable {
    private let value = Mutex<Result<T, any Error>?>(nil)
    func set(_ outcome: Result<T, any Error>) { value.withLock { $0 = outcome } }
    func get() -> Result<T, any Error>? { value.withLock { $0 } }
}
