internal import CFocalInference
import FocalCore
import Foundation

/// The output heads of a YOLO model converted from Darknet: what the runtime needs to decode its
/// raw outputs. Read from the JSON file `focalscripts.darknet_onnx` writes beside the model.
struct YOLOHeads: Decodable {
    /// One `[yolo]` layer: its anchors (network pixels) and Darknet's `scale_x_y`.
    struct Head: Decodable {
        var anchors: [[Double]]
        var scaleXY: Double

        enum CodingKeys: String, CodingKey {
            case anchors
            case scaleXY = "scale_x_y"
        }
    }

    /// The number of classes every head scores.
    var classes: Int
    /// The heads, in the order of the model's outputs `yolo_0`, `yolo_1`, ...
    var heads: [Head]

    /// Reads and checks a heads file.
    static func read(_ path: String) throws(DetectionError) -> YOLOHeads {
        let description: YOLOHeads
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            guard data.count < 1 << 20 else { throw CocoaError(.fileReadTooLarge) }
            description = try JSONDecoder().decode(YOLOHeads.self, from: data)
        } catch {
            throw DetectionError(.modelsInvalid, "cannot read \(path): \(error); run `\(ModelDirectory.fetchCommand)` again")
        }
        let valid = (1...1000).contains(description.classes) && (1...4).contains(description.heads.count)
            && description.heads.allSatisfy { head in
                (1...9).contains(head.anchors.count) && (1...4).contains(head.scaleXY)
                    && head.anchors.allSatisfy { $0.count == 2 && $0.allSatisfy { $0 > 0 && $0 < 4096 } }
            }
        guard valid else { throw DetectionError(.modelsInvalid, "\(path) describes heads out of range; run `\(ModelDirectory.fetchCommand)` again") }
        return description
    }

    /// The heads as the C shim takes them.
    var cHeads: [focal_ov_yolo_head] {
        heads.map { head in
            var c = focal_ov_yolo_head()
            c.anchor_count = Int32(head.anchors.count)
            c.scale_xy = Float(head.scaleXY)
            withUnsafeMutableBytes(of: &c.anchor_w) { w in
                withUnsafeMutableBytes(of: &c.anchor_h) { h in
                    let ws = w.bindMemory(to: Float.self), hs = h.bindMemory(to: Float.self)
                    for (index, anchor) in head.anchors.enumerated() {
                        ws[index] = Float(anchor[0])
                        hs[index] = Float(anchor[1])
                    }
                }
            }
            return c
        }
    }
}
