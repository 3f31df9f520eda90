import FocalTestSupport
import Foundation
import Glibc
import Testing

/// A test server's folder whose owner process has ended is stopped and deleted before the next
/// server starts; one whose owner lives is left alone.
@Suite struct OrphanedServersTests {
    /// Starts `argv` with posix_spawn.
    static func spawn(_ argv: [String]) throws -> pid_t {
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], nil, nil, cArguments, environ)
        guard spawned == 0 else { throw LoopbackError("cannot start \(argv[0]): error \(spawned)") }
        return pid
    }

    /// Waits for `pid` to end; its wait status.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// Whether `pid` is running: it exists and is not a zombie. (Whether it ended is read from
    /// /proc, not from `waitpid`: Foundation's `Process`, which other tests in this process use,
    /// may reap any child.)
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    /// Whether `pid` stopped running within 10 s.
    static func ends(_ pid: pid_t) async throws -> Bool {
        let until = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < until {
            if !isRunning(pid) { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// A folder named `prefix…` with a `tail -f` running on a file in it (a server whose command
    /// line names its folder).
    static func folderWithAProcess(_ prefix: String) throws -> (folder: String, pid: pid_t) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(prefix + UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "".write(toFile: folder + "/log", atomically: true, encoding: .utf8)
        return (folder, try spawn(["/usr/bin/tail", "-f", folder + "/log"]))
    }

    @Test func aDeadOwnersServerIsStoppedAndItsFolderDeleted() async throws {
        let prefix = "focal-orphan-test-\(UUID().uuidString.prefix(8))-"
        // An owner that has ended: a process run to its end.
        let ended = try Self.spawn(["/bin/true"])
        _ = Self.wait(ended)
        let orphan = try Self.folderWithAProcess(prefix)
        // One this process owns.
        let owned = try Self.folderWithAProcess(prefix)
        var orphanRunning = true
        defer {
            kill(owned.pid, SIGKILL)
            _ = Self.wait(owned.pid)
            if orphanRunning {
                kill(orphan.pid, SIGKILL)
                _ = Self.wait(orphan.pid)
            }
            for folder in [orphan.folder, owned.folder] { try? FileManager.default.removeItem(atPath: folder) }
        }
        try OrphanedServers.claim(owned.folder)
        // The orphan's owner: the ended process, in this pid namespace.
        let claimed = try String(contentsOfFile: owned.folder + "/owner", encoding: .utf8).split(separator: " ")
        try "\(ended) 1 \(claimed[2])".write(toFile: orphan.folder + "/owner", atomically: true, encoding: .utf8)

        OrphanedServers.reap(prefix: prefix, stop: OrphanedServers.killProcesses(naming:))
        let killed = try await Self.ends(orphan.pid)
        orphanRunning = !killed
        #expect(killed, "the orphan's server was killed")
        #expect(!FileManager.default.fileExists(atPath: orphan.folder))
        #expect(Self.isRunning(owned.pid), "the living owner's server is left alone")
        #expect(FileManager.default.fileExists(atPath: owned.folder + "/log"))
    }
}
