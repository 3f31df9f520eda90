import Foundation
import Testing

@testable import FocalServer

/// The hand-written JSON of log lines and the plan header parses back to what went in.
@Suite struct JSONTextTests {
    @Test("strings with quotes, backslashes, control characters, line separators and emoji round-trip")
    func strings() throws {
        let texts = ["plain", "a \"quoted\" \\ path", "line\nbreak\ttab\r", "\u{0}\u{1}\u{1f}", "\u{2028}\u{2029}", "café 🐈‍⬛", ""]
        let line = JSONText.array(texts.map { .string($0) }).text
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String])
        #expect(parsed == texts)
        #expect(!line.contains("\n"))
    }

    @Test("numbers: whole doubles without a fraction, others exact, non-finite as null")
    func numbers() throws {
        let line = JSONText.array([.int(-3), .double(2), .double(0.1), .double(1e-7), .double(.nan), .double(.infinity), .bool(true), .null]).text
        #expect(line == "[-3,2,0.1,1e-07,null,null,true,null]")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any])
        #expect((parsed[3] as? Double) == 1e-7)
    }

    @Test("objects keep their order; nested values")
    func objects() throws {
        let line = JSONText.object([("b", .int(1)), ("a", .object([("x", .array([]))]))]).text
        #expect(line == #"{"b":1,"a":{"x":[]}}"#)
    }

    @Test("the timestamp is RFC 3339 UTC with milliseconds and is now")
    func timestamp() throws {
        let text = JSONText.timestamp()
        #expect(text.count == 24 && text.hasSuffix("Z"))
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(formatter.date(from: text))
        #expect(abs(date.timeIntervalSinceNow) < 5)
    }
}
