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

    /// A folder named `prefix…` with a `tail -f` running on it, its pid in `folder/pid`.
    static func folderWithAProcess(_ prefix: String) throws -> (folder: String, pid: pid_t) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(prefix + UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "".write(toFile: folder + "/log", atomically: true, encoding: .utf8)
        let pid = try spawn(["/usr/bin/tail", "-f", folder + "/log"])
        try "\(pid)".write(toFile: folder + "/pid", atomically: true, encoding: .utf8)
        return (folder, pid)
    }

    @Test func aDeadOwnersServerIsStoppedAndItsFolderDeleted() throws {
        let prefix = "focal-orphan-test-\(UUID().uuidString.prefix(8))-"
        // An owner that has ended: a process run to its end.
        let ended = try Self.spawn(["/bin/true"])
        _ = Self.wait(ended)
        let orphan = try Self.folderWithAProcess(prefix)
        try "\(ended) 1".write(toFile: orphan.folder + "/owner", atomically: true, encoding: .utf8)
        // One this process owns.
        let owned = try Self.folderWithAProcess(prefix)
        defer {
            kill(owned.pid, SIGKILL)
            _ = Self.wait(owned.pid)
            try? FileManager.default.removeItem(atPath: owned.folder)
        }
        try OrphanedServers.claim(owned.folder)

        OrphanedServers.reap(prefix: prefix, stop: OrphanedServers.killRecordedProcess(in:))
        var status: Int32 = 0
        let ownedEnded = waitpid(owned.pid, &status, WNOHANG)
        #expect(ownedEnded == 0, "the living owner's server is left alone")
        #expect(FileManager.default.fileExists(atPath: owned.folder + "/pid"))
        #expect(!FileManager.default.fileExists(atPath: orphan.folder))
        let orphanStatus = Self.wait(orphan.pid)
        #expect(orphanStatus & 0x7f == SIGKILL, "the orphan's server was killed: status \(orphanStatus)")
    }
}
