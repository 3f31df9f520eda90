/// The version of Focal, the one place it is written.
///
/// Bumped at release; `focal --version` prints it.
public enum FocalVersion {
    /// The version, as `MAJOR.MINOR.PATCH`.
    public static let string = "0.9.0"
}
