public import FocalCore

/// How a crop's target is chosen: a fixed size or aspect, or one derived from the image's size
/// once its header has been read (thumbor's `400x0`, `fit-in`, `0x0`).
public struct TargetRule: Sendable, CustomStringConvertible {
    /// Text that identifies the rule in cache keys: equal texts must mean equal targets for
    /// every image.
    public let key: String
    /// The target, when it does not depend on the image.
    public let fixed: CropTarget?
    private let derive: @Sendable (PixelSize) throws -> CropTarget

    /// A rule that always gives `target`.
    public static func fixed(_ target: CropTarget) -> TargetRule {
        TargetRule(key: target.description, fixed: target) { _ in target }
    }

    /// A rule derived from the size of the image (or of `CropOptions.bounds`, when given).
    /// - Parameters:
    ///   - key: Identifies the rule in cache keys; equal keys must give equal targets.
    ///   - derive: The target for an image of the given size; it may throw `PlanningError`.
    public init(key: String, derive: @escaping @Sendable (_ imageSize: PixelSize) throws -> CropTarget) {
        self.init(key: "rule(\(key))", fixed: nil, derive: derive)
    }

    private init(key: String, fixed: CropTarget?, derive: @escaping @Sendable (PixelSize) throws -> CropTarget) {
        self.key = key
        self.fixed = fixed
        self.derive = derive
    }

    /// The target for an image (or bounds) of `size`, validated.
    /// - Throws: `PlanningError` when the rule gives no valid target.
    public func target(for size: PixelSize) throws -> CropTarget {
        let target = try fixed ?? derive(size)
        try target.validate()
        return target
    }

    public var description: String { key }
}
