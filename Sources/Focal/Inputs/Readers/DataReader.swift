/// Encoded bytes the caller holds: identified by their SHA-256 when asked.
struct DataReader: SourceReader {
    let name = "data"

    func fetched(_ input: ImageInput, identity: ImageIdentity?, identify: Bool, in pipeline: FocalPipeline) async throws
        -> (ImageInput.Location, ImageIdentity?)
    {
        try await pipeline.identified(input.location, identity: identity, identify: identify)
    }
}
