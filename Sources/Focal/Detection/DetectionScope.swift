/// Which detectors a request runs.
public enum DetectionScope: String, Hashable, Sendable, CaseIterable {
    /// Only what a crop can use: faces first; cats, dogs and people only when no face was found
    /// or a pet could still outrank the faces (20 times the largest face's area) or a face may be
    /// an animal's; the salient region only when no face was found. What `crop` runs.
    case crop
    /// Every detector, whatever a crop would use: `focal detect`, a `meta` request.
    case everything
}
