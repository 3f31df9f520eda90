import ArgumentParser
import Focal
import FocalServer
import Foundation

/// `focal options`: the crop option table, as every door reads it.
struct OptionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "options",
        abstract: "List the crop options every door takes: URL filters, JSON keys, flags and element attributes.",
        discussion: """
            Examples:
              focal options
              focal options --markdown   # the table of docs/options.md
            """)

    @Flag(help: "Print the Markdown table docs/options.md carries.")
    var markdown = false

    @Option(name: .customLong("write-generated"), help: .hidden)
    var checkout: String?

    func run() throws {
        if markdown {
            Terminal.out(CropOption.markdownTable)
            return
        }
        // `make generated`: the reference pages' tables and the web page's tables, from the code's.
        if let checkout {
            let written = try GeneratedRegion.writeAll(root: URL(fileURLWithPath: checkout))
            Terminal.out(written.isEmpty ? "every generated region is up to date" : "rewrote " + written.joined(separator: ", "))
            return
        }
        for option in CropOption.all {
            let plain = { (text: String) in text.filter { $0 != "`" } }
            Terminal.out("--\(option.name)  (URL: \(plain(option.urlText)); JSON: \"\(option.name)\"; <focal-img>: \(option.name))")
            Terminal.out("    \(plain(option.summary)).")
            Terminal.out("    Values: \(plain(option.values)). Default: \(plain(option.defaultText)).")
        }
    }
}
