public import Foundation

/// How every JSON document Focal writes is encoded (the CLI's `--json` lines and the service's
/// answers): keys sorted, slashes left alone, and one rounding rule — pixel values to 2 decimals,
/// fractions (relative rectangles, confidences) to 4.
public enum DocumentEncoding {
    /// A pixel value, to 2 decimals.
    public static func pixels(_ value: Double) -> Double { (value * 100).rounded() / 100 }
    /// A fraction, to 4 decimals.
    public static func fraction(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }

    /// The document's JSON bytes.
    public static func data<T: Encodable>(_ document: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Documents hold plain values only; encoding them cannot fail.
        return (try? encoder.encode(document)) ?? Data("{}".utf8)
    }

    /// The document's JSON text.
    public static func text<T: Encodable>(_ document: T) -> String { String(decoding: data(document), as: UTF8.self) }
}
