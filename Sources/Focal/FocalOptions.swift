/// What one crop request asks for besides the image and the target.
public struct FocalOptions: Hashable, Sendable {
    /// Scheme, padding, zoom, override, detection on or off.
    public var crop: CropOptions
    /// Detection speed/accuracy; default `.fast`.
    public var accuracy: Accuracy
    /// Output encoding; default JPEG.
    public var format: ImageFormat
    /// JPEG and WebP quality 1...100; default 85.
    public var quality: Int

    /// The defaults listed on each property.
    public static let `default` = FocalOptions()

    /// Creates options; every parameter defaults to the value documented on its property.
    public init(crop: CropOptions = .default, accuracy: Accuracy = .fast, format: ImageFormat = .jpeg, quality: Int = 85) {
        self.crop = crop
        self.accuracy = accuracy
        self.format = format
        self.quality = quality
    }
}
