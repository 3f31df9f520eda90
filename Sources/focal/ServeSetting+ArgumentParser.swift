import ArgumentParser
import FocalServer

// A `focal serve` setting as ArgumentParser's option or flag: its long name, its placeholder and
// its help (with the default and the variable) all come from the `ServeSetting`. Values stay text;
// `ServerConfiguration(flags:environment:)` reads and checks them with the variable's and default's.
extension Option where Value == String? {
    /// `--name VALUE` for `setting`.
    init(_ setting: ServeSetting) {
        self.init(name: .customLong(setting.name), help: ArgumentHelp(setting.help, valueName: setting.valueName))
    }
}

extension Option where Value == [String] {
    /// `--name VALUE`, repeatable, for `setting`; none given by default (`wrappedValue` `[]`).
    init(wrappedValue: [String], _ setting: ServeSetting) {
        self.init(wrappedValue: wrappedValue, name: .customLong(setting.name), help: ArgumentHelp(setting.help, valueName: setting.valueName))
    }
}

extension Flag where Value == Bool {
    /// `--name` for `setting`; off by default (`wrappedValue` `false`).
    init(wrappedValue: Bool, _ setting: ServeSetting) {
        self.init(wrappedValue: wrappedValue, name: .customLong(setting.name), help: ArgumentHelp(setting.help))
    }
}
