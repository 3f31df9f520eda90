import Focal
import Foundation

/// The one-line JSON objects `focal crop --json` prints.
enum JSONLine {
    static func subject(_ s: Subject) -> [String: Any] {
        ["kind": s.kind.rawValue, "x": round2(s.box.x), "y": round2(s.box.y), "width": round2(s.box.width),
         "height": round2(s.box.height), "confidence": round2(s.confidence)]
    }

    static func crop(input: String, plan: CropPlan, detected: [Subject], output: String?, origin: String, options: FocalOptions) -> String {
        var object: [String: Any] = [
            "input": input, "width": plan.imageSize.width, "height": plan.imageSize.height,
            "crop": ["x": plan.crop.x, "y": plan.crop.y, "width": plan.crop.width, "height": plan.crop.height],
            "strategy": plan.strategy.rawValue, "subjects": detected.map(subject),
            "output": output ?? NSNull(), "origin": origin,
            "options": Dictionary(uniqueKeysWithValues: CropOption.canonical(options).map { ($0.name, $0.value) }),
        ]
        if let region = plan.region {
            object["region"] = ["x": round2(region.x), "y": round2(region.y), "width": round2(region.width), "height": round2(region.height)]
        }
        return encode(object)
    }

    static func error(input: String, message: String, code: ErrorCode) -> String {
        encode(["input": input, "error": message, "code": code.rawValue])
    }

    static func encode(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func round2(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}
