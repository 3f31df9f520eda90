import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server for tests: a new cluster in a temporary folder (initdb), listening on
/// a loopback port with trust authentication, stopped and deleted by `stop()`. Run as the
/// `postgres` user when the tests run as root (PostgreSQL refuses root). Debian's `postgresql`
/// package provides the programs (`scripts/setup.sh test-deps` installs it).
package final class PostgresServer: @unchecked Sendable {
    /// `postgres://focal@127.0.0.1:PORT/focal`.
    package let url: String
    private let folder: String
    private let binaries: String
    private let asPostgres: Bool

    private init(url: String, folder: String, binaries: String, asPostgres: Bool) {
        self.url = url
        self.folder = folder
        self.binaries = binaries
        self.asPostgres = asPostgres
    }

    /// The folder of PostgreSQL's programs (the newest installed), or nil.
    package static var binaries: String? {
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap(Int.init).sorted()
        return versions.last.map { "/usr/lib/postgresql/\($0)/bin" }
    }

    /// Starts a server on `port` (a free loopback port), waiting on a thread of its own so that no
    /// cooperative thread blocks on the child processes.
    /// - Throws: `PostgresServer.Failure` naming the step that failed and its output.
    package static func start(port: Int) async throws -> PostgresServer {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try startNow(port: port) }) }.start()
        }
    }

    private static func startNow(port: Int) throws -> PostgresServer {
        guard let binaries, FileManager.default.isExecutableFile(atPath: binaries + "/initdb") else {
            throw Failure(description: "PostgreSQL is not installed: run scripts/setup.sh test-deps")
        }
        let asPostgres = getuid() == 0
        // A server a killed run left (pg_ctl's server outlives its starter): its processes, each
        // found by the folder its command line names, are killed.
        OrphanedServers.reap(prefix: "focal-pg-", stop: OrphanedServers.killProcesses(naming:))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("focal-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try OrphanedServers.claim(folder)
        if asPostgres { _ = try run("/bin/chown", ["postgres:postgres", folder], asPostgres: false) }
        let server = PostgresServer(
            url: "postgres://focal@127.0.0.1:\(port)/focal", folder: folder, binaries: binaries, asPostgres: asPostgres)
        do {
            try server.pg("initdb", ["-D", folder + "/data", "-U", "focal", "-A", "trust", "--no-sync", "-E", "UTF8"])
            try server.pg("pg_ctl", [
                "-D", folder + "/data", "-l", folder + "/log", "-w", "-t", "60", "-o",
                "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off", "start",
            ])
            try server.pg("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "focal", "focal"])
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    /// Stops the server (its connections are refused from then on), keeping its data.
    package func halt() throws {
        try pg("pg_ctl", ["-D", folder + "/data", "-m", "immediate", "-w", "stop"])
    }

    /// Starts a halted server again on the same port.
    package func resume() throws {
        guard let port = URLComponents(string: url)?.port else { throw Failure(description: "no port in \(url)") }
        try pg("pg_ctl", [
            "-D", folder + "/data", "-l", folder + "/log", "-w", "-t", "60", "-o",
            "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off", "start",
        ])
    }

    /// Freezes every process of the server (SIGSTOP), as a network partition would: connections
    /// stay open and nothing answers, nothing is refused. `thaw()` undoes it.
    package func freeze() throws { try signalAll(SIGSTOP) }

    /// Lets a frozen server go on (SIGCONT).
    package func thaw() throws { try signalAll(SIGCONT) }

    /// Sends `signal` to the server's postmaster and every process it started.
    private func signalAll(_ signal: Int32) throws {
        let pidFile = (try? String(contentsOfFile: folder + "/data/postmaster.pid", encoding: .utf8)) ?? ""
        guard let main = pidFile.split(separator: "\n").first.flatMap({ pid_t($0.trimmingCharacters(in: .whitespaces)) }) else {
            throw Failure(description: "no postmaster.pid")
        }
        var pids = [main]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // Fields after the name: state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == main { pids.append(pid) }
        }
        for pid in pids { kill(pid, signal) }
    }

    /// Stops the server and deletes its folder.
    package func stop() {
        _ = try? pg("pg_ctl", ["-D", folder + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func pg(_ program: String, _ arguments: [String]) throws {
        _ = try Self.run(binaries + "/" + program, arguments, asPostgres: asPostgres)
    }

    /// Why the server could not start.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Runs a program to its end with posix_spawn and waitpid, output to a file. (Foundation's
    /// Process on Linux can miss the exit of a child whose own child keeps running, as pg_ctl's
    /// server does, and wait forever.)
    @discardableResult
    static func run(_ program: String, _ arguments: [String], asPostgres: Bool) throws -> String {
        let executable = asPostgres ? "/usr/sbin/runuser" : program
        let argv = [executable] + (asPostgres ? ["-u", "postgres", "--", program] + arguments : arguments)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("focal-pg-run-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pid: pid_t = 0
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        let spawned = posix_spawn(&pid, executable, &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw Failure(description: "cannot start \(executable): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let exited = (status & 0x7f) == 0, code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            throw Failure(description: "\((program as NSString).lastPathComponent) failed (status \(status)): \(text.suffix(600))")
        }
        return text
    }
}
