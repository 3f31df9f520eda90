public import ArgumentParser
public import Focal

// The library's option types, read from the command line through the crop option table, so that
// they take the spellings a URL, a JSON body and the element take.
extension BoundingScheme: ExpressibleByArgument {
    /// Reads `all`, `largest` or `smallest`, as the `scheme` option of `CropOption.all` does.
    public init?(argument: String) {
        guard let options = CropOption.parsed("scheme", argument) else { return nil }
        self = options.crop.scheme
    }
}
extension Accuracy: ExpressibleByArgument {
    /// Reads `fast` or `accurate`, as the `accuracy` option of `CropOption.all` does.
    public init?(argument: String) {
        guard let options = CropOption.parsed("accuracy", argument) else { return nil }
        self = options.accuracy
    }
}
extension ImageFormat: ExpressibleByArgument {
    /// Reads `jpeg`, `jpg`, `png`, `webp` or `avif`, as the `format` option of `CropOption.all` does.
    public init?(argument: String) {
        guard let format = CropOption.parsed("format", argument)?.format else { return nil }
        self = format
    }
}

extension CropOption {
    /// Options with this one option read from `text`, or nil when it does not read.
    static func parsed(_ name: String, _ text: String) -> FocalOptions? {
        var options = FocalOptions()
        guard let option = named(name), (try? option.apply(text, to: &options)) != nil else { return nil }
        return options
    }

    /// The `--help` text of the option named `name`, from the table.
    static func help(_ name: String) -> ArgumentHelp {
        guard let option = named(name) else { return ArgumentHelp("") }
        let plain = { (text: String) in text.filter { $0 != "`" } }
        return ArgumentHelp("\(plain(option.summary).prefix(1).uppercased() + plain(option.summary).dropFirst()): \(plain(option.values)) (default \(plain(option.defaultText))).")
    }
}
