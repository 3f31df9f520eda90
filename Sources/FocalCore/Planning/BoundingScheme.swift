/// Which subjects of the chosen kind the crop is built around.
public enum BoundingScheme: String, Hashable, Sendable, Codable, CaseIterable {
    /// The union of every subject (default).
    case all
    /// The single largest subject.
    case largest
    /// The single smallest subject.
    case smallest

    /// The subjects this scheme keeps, in their original order.
    func select(_ subjects: [Subject]) -> [Subject] {
        switch self {
        case .all:
            return subjects
        case .largest:
            return subjects.max(by: { $0.box.area < $1.box.area }).map { [$0] } ?? []
        case .smallest:
            return subjects.min(by: { $0.box.area < $1.box.area }).map { [$0] } ?? []
        }
    }
}
