import FocalCore
import FocalImaging
import FocalTestSupport
import FocalTools
import Foundation
import Testing

/// Every suite of this target is nested in this one so that they run one at a time: the leak
/// test counts libvips objects process-wide, and a decode running beside it would move the count.
@Suite(.serialized) struct LibvipsLayer {}

/// Runs `body` and returns the Focal error it throws, recording an issue when it throws nothing
/// or an error that is not a `FocalError`.
func focalError<T>(
    _ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation
) -> (any FocalError)? {
    do {
        _ = try body()
        Issue.record("expected a FocalError, got a value", sourceLocation: sourceLocation)
        return nil
    } catch let error as any FocalError {
        return error
    } catch {
        Issue.record("expected a FocalError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension FocalError {
    /// The input the error names, for `ImagingError` and `LimitExceeded`.
    var source: String? { (self as? ImagingError)?.source ?? (self as? LimitExceeded)?.source }
}
