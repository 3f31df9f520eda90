@testable import FocalServer
import Testing

/// `Server-Timing` entries are quoted strings: what would end or break them is escaped or dropped.
@Suite struct ServerTimingTests {
    @Test func quotesAndBackslashesAreEscapedAndControlsDropped() {
        #expect(ServerTiming.entry("a", "q\"b\\c\u{7}é\r\n") == #"a;desc="q\"b\\c""#)
        #expect(ServerTiming.value(plan: #"{"k":1}"#, type: "image/webp") == #"focal-plan;desc="{\"k\":1}", focal-type;desc="image/webp""#)
    }
}
