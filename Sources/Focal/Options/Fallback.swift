public import Foundation

/// What a crop returns when the image cannot be used: made by the crop's own steps, so the
/// request's effects, overlays, fill and redaction apply to it. A redaction fails closed: a centre
/// crop still looks for the faces it hides (and throws when it cannot), and no placeholder stands
/// in for a crop with a redaction.
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
