@testable import Focal
import Testing

/// A result's key is the canonical encoding of its resolved options: every option of the table
/// that changes the output changes the key, and spellings that mean the same give the same key.
@Suite struct ResultKeyTests {
    static func key(_ options: FocalOptions) -> ResultKey {
        ResultKey(identity: .name("00"), target: "400x300", options: options, detectors: "d1")
    }

    @Test("two values of one option give two keys exactly when their canonical texts differ", arguments: CropOption.all.map(\.name))
    func everyOptionIsInTheKey(name: String) throws {
        let option = try #require(CropOption.named(name))
        let resolved = try option.examples.map { text -> (String?, ResultKey) in
            var options = FocalOptions()
            try option.apply(text, to: &options)
            return (option.text(of: options), Self.key(options))
        }
        for a in resolved {
            for b in resolved {
                #expect((a.0 == b.0) == (a.1 == b.1), "\(name): \(String(describing: a.0)) vs \(String(describing: b.0))")
            }
        }
        // An option whose every value means one thing (`grayscale()`) still differs from its absence.
        #expect(Set(resolved.map(\.1) + [Self.key(FocalOptions())]).count >= 2, "\(name)'s examples give at least two keys, counting the default's")
    }

    @Test("fields outside the table are in the key too: bounds, flip, saved-crop revision")
    func otherFieldsAreInTheKey() {
        var options = FocalOptions()
        let plain = Self.key(options)
        options.crop.bounds = PixelRect(x: 1, y: 2, width: 30, height: 40)
        #expect(Self.key(options) != plain)
        options = FocalOptions()
        options.flip = .horizontal
        #expect(Self.key(options) != plain)
        options = FocalOptions()
        options.savedCropRevision = 3
        #expect(Self.key(options) != plain)
    }

    @Test("the encode options sit flat beside the others, so results cached before they were grouped keep their keys")
    func encodeOptionsAreFlat() throws {
        var options = FocalOptions()
        options.encoding.quality = 70
        options.flip = .horizontal
        let json = try #require(Self.key(options).text.split(separator: "|").last)
        #expect(json.contains(#""quality":70"#))
        #expect(json.contains(#""flip":1"#))
        #expect(!json.contains("encoding"))
        #expect(!json.contains("automaticFormat"), "an absent option is left out, not null")
    }

    @Test("what cannot change the output is not in the key: the fallback, and detection settings when nothing is detected")
    func irrelevantFieldsAreNot() throws {
        var options = FocalOptions()
        options.fallback = .centerCrop
        #expect(Self.key(options) == Self.key(FocalOptions()))
        var off = FocalOptions()
        off.crop.detect = false
        var offAccurate = off
        offAccurate.accuracy = .accurate
        #expect(Self.key(off) == Self.key(offAccurate))
        #expect(ResultKey(identity: .name("a"), target: "t", options: off, detectors: "d1") == ResultKey(identity: .name("a"), target: "t", options: off, detectors: "d2"))
    }
}
