import FocalCore
import Foundation
import NIOCore

/// Durations as the HTTP clients of this layer (URLs, object stores) take and print them.
extension Duration {
    /// The duration as NIO's `TimeAmount` (AsyncHTTPClient's timeouts), `Int64.max` nanoseconds at most.
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return .nanoseconds(overflow ? .max : scaled + attoseconds / 1_000_000_000)
    }

    /// `5 s`, or `2.50 s` when not whole, for messages.
    var secondsText: String {
        let value = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(rounding: value, within: Int.min...Int.max)) s" : String(format: "%.2f s", value)
    }
}
