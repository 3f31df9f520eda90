// libFuzzer target: bytes in, crop out. Built only by `make fuzz` / `make fuzz-ci`, which set
// FOCAL_FUZZ=1 (the manifest adds this target only then) and pass -sanitize=fuzzer,address; main.swift
// hands control to libFuzzer's driver. Each input is opened with the default limits, decoded to a proxy as detection
// would, planned with subjects taken from the proxy's pixels (so that mutations reach the planner
// too), rendered and encoded as JPEG; an animation's frames are also cut and encoded as a GIF. A typed error with a known code is a pass; a trap, an
// AddressSanitizer report, an untyped error or `internal.failure` is a finding.
import FocalCore
import FocalImaging
import Foundation

/// The targets tried, picked by the input's last byte so that mutations reach each of them.
private let targets: [CropTarget] = [
    .size(width: 64, height: 48), .aspect(width: 16, height: 9), .size(width: 1, height: 1),
    .aspect(width: 1, height: 3), .size(width: 160, height: 160), .aspect(width: 100_000, height: 1),
]

private let kinds: [SubjectKind] = [.face, .cat, .dog, .person, .saliency]

/// Up to four subjects read from the proxy's first pixels: where, how big and what kind.
private func subjects(from proxy: PixelBuffer, imageSize: PixelSize) -> [Subject] {
    let bytes = proxy.bytes
    var found: [Subject] = []
    var i = 0
    while found.count < 4, i + 6 <= bytes.count {
        let x = Double(bytes[i]) / 255 * Double(imageSize.width), y = Double(bytes[i + 1]) / 255 * Double(imageSize.height)
        let w = Double(bytes[i + 2]) / 128 * Double(imageSize.width), h = Double(bytes[i + 3]) / 128 * Double(imageSize.height)
        let kind = kinds[Int(bytes[i + 4]) % kinds.count]
        found.append(Subject(kind: kind, box: Box(x: x - w / 2, y: y - h / 2, width: w, height: h), confidence: Double(bytes[i + 5]) / 255))
        i += 6 * 97  // pixels far apart, so that a flat image still yields varied boxes
    }
    return found
}

/// Runs one input through open, proxy, plan, render and encode.
private func crop(_ data: Data) {
    do {
        let image = try SourceImage.open(data: data, name: "fuzz")
        let proxy = try image.proxy(longSide: 128)
        let target = targets[Int(data.last ?? 0) % targets.count]
        var options = CropOptions.default
        options.padding = .fraction(Double(data.first ?? 0) / 255)
        let plan = try CropPlanner.plan(imageSize: image.size, target: target, subjects: subjects(from: proxy, imageSize: image.size), options: options)
        if case .size = target { try image.checkOutput(plan.outputSize) }
        let jpeg = try image.encode(crop: plan.crop, to: plan.outputSize, format: .jpeg, quality: 75)
        if jpeg.isEmpty { fatalError("an empty JPEG for a crop of \(plan.crop) to \(plan.outputSize)") }
        // An animation (a few frames of a small canvas): every frame cut and encoded as a GIF.
        if let animation = try image.animation(), animation.frames <= 16, animation.decodedPixels <= 4_000_000,
            plan.outputSize.area <= 256 * 256
        {
            let reader = try image.frames(of: animation)
            let frames = try (0..<animation.frames).map { try reader.frame($0, crop: plan.crop, to: plan.outputSize) }
            let gif = try RenderedImage.encodeAnimation(
                frames, delays: animation.delays, loop: animation.loop, settings: EncodeSettings(format: .gif), deadline: image.deadline)
            if gif.isEmpty { fatalError("an empty GIF of \(animation.frames) frames") }
        }
    } catch let error as any FocalError {
        // An error Focal should never raise for an input alone: a bug to look at.
        if error.code == .internalFailure { fatalError("internal.failure: \(error.detail)") }
    } catch {
        fatalError("an untyped error: \(error)")
    }
}

/// One input, as libFuzzer calls it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    crop(bytes.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}
