import Focal
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Testing

/// Every error code has a deliberate HTTP status, the list of codes is complete, and the table of
/// errors in `docs/http-api.md` says the same as the code.
@Suite struct ErrorStatusTests {
    /// The codes declared in `file`, read from the source.
    static func declared(in file: String) throws -> [String] {
        let source = try String(contentsOf: Checkout.root.appendingPathComponent(file), encoding: .utf8)
        return source.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("public static let"), let start = line.range(of: "rawValue: \"") else { return nil }
            let rest = line[start.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
    }

    /// The library's codes are listed in `ErrorCode.all`, the server's own in `ErrorCode.server`,
    /// each once, and each has one row of the status table.
    @Test func theListsHaveEveryCodeOnce() throws {
        let library = try Self.declared(in: "Sources/FocalCore/Errors/ErrorCode.swift")
        let server = try Self.declared(in: "Sources/FocalServer/ServerErrorCode.swift")
        #expect(library.count > 25 && server.count > 10)
        #expect(Set(ErrorCode.all.map(\.rawValue)) == Set(library), "ErrorCode.all and the declarations differ")
        #expect(Set(ErrorCode.server.map(\.rawValue)) == Set(server), "ErrorCode.server and the declarations differ")
        let every = ErrorCode.all + ErrorCode.server
        #expect(every.count == Set(every).count, "no code listed twice, nor declared by both")
        let rows = ErrorStatus.table.map(\.code)
        #expect(rows.count == Set(rows).count, "one status row per code")
        #expect(Set(rows) == Set(every), "every code has a status row, and every row a declared code")
    }

    /// Only the server's own failures are 500; every other code is a 4xx the client can act on,
    /// or a 5xx that says what failed upstream or here.
    @Test func everyCodeHasADeliberateStatus() {
        let serverFailures: Set<ErrorCode> = [.inputUnreadable, .outputEncodeFailed, .outputWriteFailed, .detectionFailed, .internalFailure]
        for code in ErrorCode.all + ErrorCode.server {
            let status = HTTPResponse.Status(for: code)
            if serverFailures.contains(code) {
                #expect(status == .internalServerError, "\(code)")
            } else {
                #expect(status != .internalServerError && status.code >= 400, "\(code) → \(status.code)")
            }
            let area = code.area
            switch area {
            case "request", "input", "client": #expect((400..<500).contains(status.code) || serverFailures.contains(code), "\(code) → \(status.code)")
            case "fetch": #expect([400, 404, 413, 415, 502, 504].contains(status.code), "\(code) → \(status.code)")
            default: break
            }
        }
        #expect(HTTPResponse.Status(for: ErrorCode(rawValue: "no.such_code")) == .internalServerError)
    }

    /// Each row of the table of errors (`docs/http-api.md`) lists codes answered with that status,
    /// and every code sent to clients is in the row of its status.
    @Test func theDocsTableAgrees() throws {
        let page = try String(contentsOf: Checkout.root.appendingPathComponent("docs/http-api.md"), encoding: .utf8)
        guard let start = page.range(of: "\n## Errors\n"), let end = page.range(of: "\n## Logs and metrics\n", range: start.upperBound..<page.endIndex) else {
            Issue.record("docs/http-api.md has no Errors section followed by Logs and metrics")
            return
        }
        var rows: [Int: String] = [:]
        for line in page[start.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if let status = cells.first.flatMap({ Int($0) }), cells.count > 1 { rows[status] = cells[1] }
        }
        for code in ErrorCode.all + ErrorCode.server where code != .clientAborted {
            let status = HTTPResponse.Status(for: code).code
            #expect(rows[status]?.contains("`\(code.rawValue)`") == true, "docs/http-api.md: \(code) should be in the \(status) row")
            for (other, text) in rows where other != status {
                #expect(!text.contains("`\(code.rawValue)`"), "docs/http-api.md: \(code) is listed under \(other), but answers \(status)")
            }
        }
    }
}
