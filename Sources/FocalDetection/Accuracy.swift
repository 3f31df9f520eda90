/// The detection speed/accuracy trade-off.
public enum Accuracy: String, Hashable, Sendable, Codable, CaseIterable {
    /// A proxy of 512 px on the long side: quick, finds faces down to about 1/32 of it (on the
    /// development and stress sets it finds what 640 px found, at two thirds of the cost).
    case fast
    /// A larger proxy (1280 px on the long side): about four times slower, finds the small
    /// faces of a group photo.
    case accurate

    /// The long side of the proxy the face detector sees.
    public var faceLongSide: Int {
        switch self {
        case .fast: 512
        case .accurate: 1280
        }
    }
}
