package import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The test servers (SeaweedFS, PostgreSQL) a killed test run left running. Each server's
/// temporary folder names the process that owns it (its pid and start time, in `owner`); before a
/// server starts, the folders whose owner is gone are handed to `stop` and deleted, so that a run
/// interrupted by Ctrl-C, a timeout or a crash costs the next run nothing.
package enum OrphanedServers {
    /// Writes `folder/owner`: this process's pid, start time and pid namespace.
    package static func claim(_ folder: String) throws {
        let pid = getpid()
        try "\(pid) \(startTime(of: pid) ?? "") \(pidNamespace)".write(toFile: folder + "/owner", atomically: true, encoding: .utf8)
    }

    /// This process's pid namespace (`pid:[N]`): a pid means nothing in another one (a container
    /// sharing the temporary folder).
    static var pidNamespace: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid")) ?? "unknown"
    }

    /// Stops (with `stop`) and deletes every temporary folder named `prefix…` whose owner process
    /// has ended. Folders without an owner file, or whose owner lives, are left alone.
    package static func reap(prefix: String, stop: (String) -> Void) {
        let temporary = FileManager.default.temporaryDirectory.path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where name.hasPrefix(prefix) {
            let folder = temporary + "/" + name
            guard let owner = try? String(contentsOfFile: folder + "/owner", encoding: .utf8) else { continue }
            let fields = owner.split(separator: " ")
            guard fields.count == 3, let pid = pid_t(fields[0]), fields[2] == pidNamespace else { continue }
            if let started = startTime(of: pid), started == fields[1] { continue }
            stop(folder)
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Kills (SIGKILL) every process whose command line names `folder` (so nothing else, whatever
    /// pid it has, is touched; and a server whose pid was never written is found all the same).
    package static func killProcesses(naming folder: String) {
        for pid in processes(naming: folder) { kill(pid, SIGKILL) }
    }

    /// The processes whose command line names `folder`.
    package static func processes(naming folder: String) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let pid = pid_t(entry), pid > 0, pid != getpid(),
                let commandLine = procFile("/proc/\(entry)/cmdline"),
                String(decoding: commandLine, as: UTF8.self).contains(folder)
            else { return nil }
            return pid
        }
    }

    /// The process's start time in clock ticks since boot (field 22 of `/proc/PID/stat`), or nil
    /// when there is no such process.
    static func startTime(of pid: pid_t) -> Substring? {
        guard let data = procFile("/proc/\(pid)/stat"), case let stat = String(decoding: data, as: UTF8.self), let close = stat.lastIndex(of: ")") else { return nil }
        // After the name: state (field 3) … start time (field 22).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? fields[19] : nil
    }

    /// A /proc file's bytes, or nil when it cannot be read. Read with `read(2)` retried on EINTR:
    /// Foundation's readers give up when a signal interrupts them, and a test process full of
    /// children gets SIGCHLD all the time (the reaper then missed its orphan in CI).
    static func procFile(_ path: String) -> Data? {
        var descriptor: Int32
        repeat { descriptor = open(path, O_RDONLY | O_CLOEXEC) } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return try? readAll(descriptor)
    }
}
