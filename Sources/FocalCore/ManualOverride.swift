/// A choice a person made that replaces detection.
public enum ManualOverride: Hashable, Sendable {
    /// Centre the crop on this point (pixels of the oriented image), then keep it inside.
    case focus(x: Double, y: Double)
    /// Build the crop around this rectangle (pixels of the oriented image).
    case region(PixelRect)
    /// Centre the crop on this point given as fractions of the image's width and height (0...1;
    /// 0, 0 is the top left), then keep it inside: alignments such as "top left" or "bottom".
    case relativeFocus(x: Double, y: Double)

    /// Parses `X,Y` as a focus point.
    /// - Throws: `PlanningError.invalidOption` unless it is two numbers.
    public init(parsingFocus text: String) throws(PlanningError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0.filter { $0 != " " })) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], x.isFinite, y.isFinite else {
            throw PlanningError.invalidOption("focus '\(text)' must be two numbers X,Y in pixels, e.g. 320,180")
        }
        self = .focus(x: x, y: y)
    }
}
