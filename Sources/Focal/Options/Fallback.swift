public import Foundation

/// What a crop returns when the image cannot be used. A crop with a redaction never falls back:
/// when the faces it hides cannot be looked for, it throws, so that no image leaves unredacted.
public enum Fallback: Hashable, Sendable, Encodable {
    /// Throw the error (the default).
    case error
    /// A centre crop when the image loaded but detection failed (a missing or broken model);
    /// any other failure is thrown.
    case centerCrop
    /// Your placeholder image (encoded bytes), centre-cropped to the target, for any failure to
    /// fetch, read, detect or encode, or when the pipeline is overloaded. Invalid options and
    /// cancellation are still thrown.
    case placeholder(Data)
}
