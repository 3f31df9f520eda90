public import ArgumentParser
public import Focal

// The library's option types, read straight from the command line.
extension BoundingScheme: ExpressibleByArgument {}
extension Accuracy: ExpressibleByArgument {}
extension ImageFormat: ExpressibleByArgument {
    /// Reads `jpeg`, `jpg`, `png` or `webp`.
    public init?(argument: String) {
        self.init(rawValue: argument == "jpg" ? "jpeg" : argument)
    }
}
