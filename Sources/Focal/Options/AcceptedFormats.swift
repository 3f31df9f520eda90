public import FocalCore
public import FocalImaging

/// The encodings a client takes besides JPEG, for the automatic format (`format(auto)`): those
/// whose row says the automatic format may choose them (`FormatDescriptor.automaticRank`).
///
/// Read from an HTTP `Accept` header: a format counts only when the header names it explicitly
/// (`image/avif`, `image/webp`) with a quality above 0. Wildcards (`image/*`, `*/*`) do not count:
/// `fetch()` and many HTTP libraries send `*/*` whatever they can decode.
public struct AcceptedFormats: OptionSet, Hashable, Sendable, Codable {
    public let rawValue: Int

    /// Creates the set from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// AVIF.
    public static let avif = AcceptedFormats(rawValue: 1)
    /// WebP.
    public static let webp = AcceptedFormats(rawValue: 2)

    /// The member for a format the automatic format may choose (`FormatDescriptor.automaticRank`):
    /// one bit per rank, so AVIF's and WebP's are the ones above.
    public static func member(_ format: ImageFormat) -> AcceptedFormats? {
        format.descriptor.automaticRank.map { AcceptedFormats(rawValue: 1 << $0) }
    }

    /// The formats an `Accept` header names; empty for nil or a header naming none that the
    /// automatic format may choose.
    /// - Parameter header: The header's value, as sent (several headers joined by commas); read
    ///   as `HTTPAcceptList` reads it.
    public init(acceptHeader header: String?) {
        let names = HTTPAcceptList.accepted(header)
        self = []
        for format in FormatDescriptor.automatic where names.contains(format.mediaType) {
            if let member = Self.member(format) { insert(member) }
        }
    }

    /// The best of these formats for an output of `size`, in the automatic format's order (AVIF,
    /// then WebP), each only when it holds that size; else JPEG.
    public func best(for size: PixelSize) -> ImageFormat {
        for format in FormatDescriptor.automatic {
            if let member = Self.member(format), contains(member), format.holds(size) { return format }
        }
        return .jpeg
    }
}
