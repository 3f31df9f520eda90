public import FocalCore
import Foundation

/// `curve([(x,y),…],[…],[…],[…])`: tone curves, as thumbor's: each list of points (x rising, 0 to
/// 255) is joined by a natural cubic spline into a table of 256 values; a pixel's red, green and
/// blue go through their own curve (the second, third and fourth lists), then all three through
/// the first. Below a curve's first x it gives the first y; from its last x on, the last y.
public struct Curve: Effect {
    public static let name = "curve"
    public static let values = "four lists of points `[(x,y),…]`, all channels then red, green, blue; 1 to 256 points a list, x rising from 0 to 255, y 0 to 255"
    public static let summary = "maps tones through curves, as an editor's curves tool (thumbor's filter)"
    public static let examples = [
        "[(0,0),(64,40),(192,215),(255,255)],[(0,0),(255,255)],[(0,0),(255,255)],[(0,10),(255,240)]",
        "[(0,0),(255,255)],[(0,50),(128,170),(255,254)],[(0,0),(128,182),(255,252)],[(0,48),(128,144),(255,225)]",
    ]
    /// The four curves' points: all channels, red, green, blue.
    public let curves: [[Point]]

    /// One point of a curve.
    public struct Point: Sendable, Hashable {
        public let x: Int, y: Int
    }

    public init(arguments: String) throws(PlanningError) {
        let text = arguments.filter { $0 != " " }
        var lists: [[Point]] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            guard rest.hasPrefix("["), let close = rest.firstIndex(of: "]") else { throw Self.refusal("'\(arguments)'") }
            lists.append(try Self.points(rest[rest.index(after: rest.startIndex)..<close]))
            rest = rest[rest.index(after: close)...]
            if rest.hasPrefix(",") {
                rest = rest.dropFirst()
                if rest.isEmpty { throw Self.refusal("'\(arguments)'") }
            } else if !rest.isEmpty {
                throw Self.refusal("'\(arguments)'")
            }
        }
        guard lists.count == 4 else { throw Self.refusal("\(lists.count) lists of points") }
        curves = lists
    }

    /// The points of one list's inside: `(x,y),(x,y)`.
    private static func points(_ text: Substring) throws(PlanningError) -> [Point] {
        var points: [Point] = []
        var rest = text
        while !rest.isEmpty {
            guard rest.hasPrefix("("), let close = rest.firstIndex(of: ")") else { throw refusal("'[\(text)]'") }
            let pair = rest[rest.index(after: rest.startIndex)..<close].split(separator: ",", omittingEmptySubsequences: false)
            guard pair.count == 2, let x = byte(pair[0]), let y = byte(pair[1]) else { throw refusal("'[\(text)]' (each point is (x,y), 0 to 255)") }
            if let last = points.last, x <= last.x { throw refusal("'[\(text)]' (x must rise from point to point)") }
            points.append(Point(x: x, y: y))
            rest = rest[rest.index(after: close)...]
            if rest.hasPrefix(",") { rest = rest.dropFirst() }
        }
        guard !points.isEmpty else { throw refusal("an empty list of points") }
        return points
    }

    /// A whole number 0...255 written in digits alone.
    private static func byte(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 3, text.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(text), value <= 255 else { return nil }
        return value
    }

    private static func refusal(_ what: String) -> PlanningError {
        PlanningError.invalidOption("curve(…) was given \(what); it takes \(values)")
    }

    public var arguments: String {
        curves.map { "[" + $0.map { "(\($0.x),\($0.y))" }.joined(separator: ",") + "]" }.joined(separator: ",")
    }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        let tables = curves.map(Self.table)
        let all = tables[0]
        let red = tables[1].map { all[Int($0)] }, green = tables[2].map { all[Int($0)] }, blue = tables[3].map { all[Int($0)] }
        return try image.mappingPixels { $0.lookingUp(red: red, green: green, blue: blue) }
    }

    /// The 256 values of one curve: a natural cubic spline through its points (second
    /// derivatives 0 at both ends), rounded half away from zero and held to 0...255.
    static func table(_ points: [Point]) -> [UInt8] {
        let n = points.count
        let x = points.map { Double($0.x) }, y = points.map { Double($0.y) }
        var table = [UInt8](repeating: UInt8(points[0].y), count: 256)
        guard n > 1 else { return table }
        // The tridiagonal system for the second derivatives, solved as thumbor's C extension does.
        var sub = [Double](repeating: 0, count: n), diagonal = [Double](repeating: 0, count: n), sup = [Double](repeating: 0, count: n)
        var result = [Double](repeating: 0, count: n)
        diagonal[0] = 1
        diagonal[n - 1] = 1
        for i in 1..<(n - 1) {
            sub[i] = (x[i] - x[i - 1]) / 6
            diagonal[i] = (x[i + 1] - x[i - 1]) / 3
            sup[i] = (x[i + 1] - x[i]) / 6
            result[i] = (y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1])
        }
        for i in 1..<n {
            let k = sub[i] / diagonal[i - 1]
            diagonal[i] -= k * sup[i - 1]
            sub[i] = 0
            result[i] -= k * result[i - 1]
        }
        for i in stride(from: n - 2, through: 0, by: -1) {
            let k = sup[i] / diagonal[i + 1]
            diagonal[i] -= k * sub[i + 1]
            sup[i] = 0
            result[i] -= k * result[i + 1]
        }
        let second = (0..<n).map { result[$0] / diagonal[$0] }
        for i in 0..<(n - 1) {
            let h = x[i + 1] - x[i]
            for at in points[i].x..<points[i + 1].x {
                let b = (Double(at) - x[i]) / h, a = 1 - b
                let value = a * y[i] + b * y[i + 1] + (h * h / 6) * ((a * a * a - a) * second[i] + (b * b * b - b) * second[i + 1])
                table[at] = UInt8(min(255, max(0, value.rounded(.toNearestOrAwayFromZero))))
            }
        }
        for at in points[n - 1].x..<256 { table[at] = UInt8(points[n - 1].y) }
        return table
    }
}
