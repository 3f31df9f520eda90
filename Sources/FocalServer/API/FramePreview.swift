import Focal
import Foundation

/// A frame's crop as a tiny inline image (`data:image/webp;base64,…`, about 200 bytes), for a
/// page to show, blurred by the browser's scaling, before the crop itself arrives: no request.
/// `POST /v1/plan` gives one per frame when asked (`"previews": true`); the markup helpers write
/// it in.
///
/// Bounded: at most `mostCrops` distinct crops are rendered per plan (frames with the same crop
/// share one), within `budget` in all; a URL source gets none (each render would fetch it
/// again; an object is read once for all of them). A preview that cannot be made, or runs past
/// the budget, is left out; but one whose redaction cannot look for faces (a model missing or
/// broken) fails the whole answer with that error, as the image URL would.
enum FramePreview {
    /// The long side of a preview, in pixels.
    static let longSide = 16
    /// The WebP quality of a preview: enough for colour and layout, not for detail.
    static let quality = 40
    /// The most distinct crops rendered for one plan.
    static let mostCrops = 8
    /// One preview per crop, in order (nil where none was made).
    /// - Parameter contentID: The image's SHA-256, when known: each render then skips hashing it.
    /// - Parameters:
    ///   - budget: The time all of them may take (`ServerConfiguration.previewBudget`).
    ///   - redaction: What each preview hides, as the frames' images do.
    ///   - request: The request's options: a preview is of the page it picks, turned as it says,
    ///     mirrored, with its effects that show at 16 pixels (`Effect.previewed`).
    static func dataURIs(
        of crops: [PixelRect], in input: ImageInput, contentID: String?, pipeline: FocalPipeline, budget: Duration, redaction: Redaction?,
        like request: FocalOptions = FocalOptions()
    ) async throws -> [String?] {
        if case .url = input.location { return crops.map { _ in nil } }
        var wanted: [PixelRect] = []
        for crop in crops where !wanted.contains(where: { Self.key($0) == Self.key(crop) }) && wanted.count < mostCrops { wanted.append(crop) }
        let rendered: [String: String]
        do {
            rendered = try await RequestTimeout.run(budget) { [wanted] in
                var input = input
                if input.contentID == nil, let contentID { input.contentID = contentID }
                // An object is read once for every preview, not once per render, and identified by
                // the bytes read (it may have been replaced since the plan).
                if case let .object(address) = input.location {
                    input = ImageInput(.data(try await pipeline.objects.data(address), name: address.description))
                }
                var made: [String: String] = [:]
                for crop in wanted {
                    try Task.checkCancellation()
                    made[Self.key(crop)] = try await dataURI(of: crop, in: input, pipeline: pipeline, redaction: redaction, like: request)
                }
                return made
            }
        } catch let error as DetectionError where redaction != nil {
            throw error
        } catch {
            rendered = [:]
        }
        return crops.map { rendered[Self.key($0)] }
    }

    /// A crop as a dictionary key.
    static func key(_ crop: PixelRect) -> String { "\(crop.x),\(crop.y),\(crop.width),\(crop.height)" }

    /// The crop `crop` of `input` at `longSide` pixels as a data URI, or nil when it cannot be made.
    /// - Parameter request: The request's options, as `dataURIs`.
    /// - Throws: `DetectionError` when `redaction` cannot look for what it hides.
    static func dataURI(
        of crop: PixelRect, in input: ImageInput, pipeline: FocalPipeline, redaction: Redaction? = nil, like request: FocalOptions = FocalOptions()
    ) async throws -> String? {
        guard crop.width > 0, crop.height > 0 else { return nil }
        let scale = Double(longSide) / Double(max(crop.width, crop.height))
        let width = max(1, Int((Double(crop.width) * scale).rounded())), height = max(1, Int((Double(crop.height) * scale).rounded()))
        var options = FocalOptions()
        // Exactly the frame's crop: its region as the bounds, no detection, no saved crop.
        options.crop.detect = false
        options.crop.bounds = crop
        options.format = .webp
        options.redaction = redaction
        options.quality = quality
        // The image the crop is in (a page, turned), and what the output looks like.
        options.page = request.page
        options.orient = request.orient
        options.flip = request.flip
        options.effects = request.effects.filter { type(of: $0.effect).previewed }
        do {
            let result = try await pipeline.crop(input, to: .size(width: width, height: height), options: options)
            return "data:image/webp;base64," + result.data.base64EncodedString()
        } catch let error as DetectionError where redaction != nil {
            throw error
        } catch {
            return nil
        }
    }
}
