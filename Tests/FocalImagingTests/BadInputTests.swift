import FocalCore
import FocalImaging
import Foundation
import Testing

extension LibvipsLayer {
    /// Inputs that are not images, or not whole ones: a clear error code naming the source,
    /// never a crash and never a silently grey picture.
    @Suite("SourceImage: bad input") struct BadInputTests {
        @Test func emptyDataIsEmpty() {
            let error = imagingError { try SourceImage.open(data: Data(), name: "upload.jpg") }
            #expect(error?.code == .empty)
            #expect(error?.source == "upload.jpg")
            #expect(error?.description.contains("upload.jpg") == true)
        }

        @Test func emptyFileIsEmpty() throws {
            let folder = try ScratchFolder()
            defer { folder.remove() }
            let path = folder.path("empty.png")
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            let error = imagingError { try SourceImage.open(path: path) }
            #expect(error?.code == .empty)
            #expect(error?.description.contains(path) == true)
        }

        @Test func randomBytesAreNotAnImage() {
            // A fixed-seed generator, so the bytes are the same in every run.
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            let bytes = (0..<4096).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 33)
            }
            let error = imagingError { try SourceImage.open(data: Data(bytes), name: "noise") }
            #expect(error?.code == .notAnImage)
            #expect(error?.description.contains("noise") == true)
        }

        @Test func textFileIsNotAnImage() throws {
            let folder = try ScratchFolder()
            defer { folder.remove() }
            let path = folder.path("notes.jpg")
            try Data("This is a text file with a .jpg name, not a picture.\n".utf8).write(to: URL(fileURLWithPath: path))
            let error = imagingError { try SourceImage.open(path: path) }
            #expect(error?.code == .notAnImage)
            #expect(error?.source == path)
            #expect(error?.description.contains(path) == true)
        }

        @Test func directoryIsAnIOError() throws {
            let folder = try ScratchFolder()
            defer { folder.remove() }
            let error = imagingError { try SourceImage.open(path: folder.url.path) }
            #expect(error?.code == .io)
            #expect(error?.description.contains(folder.url.path) == true)
        }

        @Test func missingFileIsAnIOError() throws {
            let folder = try ScratchFolder()
            defer { folder.remove() }
            let path = folder.path("nowhere/missing.png")
            let error = imagingError { try SourceImage.open(path: path) }
            #expect(error?.code == .io)
            #expect(error?.description.contains(path) == true)
        }

        /// The first 60 % of a JPEG has a valid header, so it opens; every way of computing its
        /// pixels then fails with `.decodeFailed` instead of returning a half-grey picture.
        /// Through `encode` too the code is `.decodeFailed`: libjpeg's "Premature end of input file"
        /// is a decode problem whatever its case.
        @Test func truncatedJPEGFailsToDecode() throws {
            let whole = try Fixture.graceHopper.data
            let truncated = whole.prefix(whole.count * 6 / 10)
            let image = try SourceImage.open(data: truncated, name: "cut.jpg")
            #expect(image.size == PixelSize(width: 512, height: 600))

            for longSide in [600, 150, 40] {  // full size, and shrink-on-load at 1/4 and 1/8
                let error = imagingError { try image.proxy(longSide: longSide) }
                #expect(error?.code == .decodeFailed, "proxy \(longSide)")
                #expect(error?.source == "cut.jpg")
            }
            let crop = PixelRect(x: 0, y: 0, width: 512, height: 600)
            for format in ImageFormat.allCases {
                let error = imagingError { try image.render(crop: crop, to: PixelSize(width: 100, height: 117)).encode(format) }
                let named = imagingError { try image.encode(crop: crop, to: PixelSize(width: 100, height: 117), format: format) }
                #expect(error != nil && named != nil, "an error, not a picture")
                #expect(named?.description.contains("cut.jpg") == true)
                #expect(error?.code == .decodeFailed, "encode \(format)")
                #expect(named?.code == .decodeFailed)
            }
            let error = imagingError { try image.render(crop: crop, to: PixelSize(width: 64, height: 75)).pixels() }
            #expect(error?.code == .decodeFailed)
        }

        /// The same for a PNG cut short.
        @Test func truncatedPNGFailsToDecode() throws {
            let whole = try Fixture.coffee.data
            let image = try SourceImage.open(data: whole.prefix(whole.count * 6 / 10), name: "cut.png")
            let error = imagingError { try image.proxy(longSide: 300) }
            #expect(error?.code == .decodeFailed)
            #expect(error?.source == "cut.png")
        }

        /// A JPEG whose entropy-coded data was overwritten with garbage halfway: an error or a
        /// picture, never a crash. (libjpeg recovers from some corruption; that is fine.)
        @Test func corruptJPEGDoesNotCrash() throws {
            var bytes = [UInt8](try Fixture.graceHopper.data)
            for i in stride(from: bytes.count / 2, to: bytes.count - 2, by: 7) { bytes[i] = 0xFF }
            let image = try SourceImage.open(data: Data(bytes))
            do {
                let proxy = try image.proxy(longSide: 100)
                #expect(proxy.size == PixelSize(width: 85, height: 100))
            } catch {
                #expect(error.code == .decodeFailed)
            }
        }
    }
}
