import FocalCore
import FocalImaging
import Foundation
import FocalTestSupport
import FocalTools
import Testing

extension LibvipsLayer {
    /// Inputs that are not images, or not whole ones: a clear error code naming the source,
    /// never a crash and never a silently grey picture.
    @Suite("SourceImage: bad input") struct BadInputTests {
        @Test func emptyDataIsEmpty() {
            let error = focalError { try SourceImage.open(data: Data(), name: "upload.jpg") }
            #expect(error?.code == .inputEmpty)
            #expect(error?.source == "upload.jpg")
            #expect(error?.description.contains("upload.jpg") == true)
        }

        @Test func emptyFileIsEmpty() throws {
            let folder = try Scratch()
            defer { folder.remove() }
            let path = folder.path("empty.png")
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            let error = focalError { try SourceImage.open(path: path) }
            #expect(error?.code == .inputEmpty)
            #expect(error?.description.contains(path) == true)
        }

        @Test func randomBytesAreNotAnImage() {
            // A fixed-seed generator, so the bytes are the same in every run.
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            let bytes = (0..<4096).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 33)
            }
            let error = focalError { try SourceImage.open(data: Data(bytes), name: "noise") }
            #expect(error?.code == .inputNotAnImage)
            #expect(error?.description.contains("noise") == true)
        }

        @Test func textFileIsNotAnImage() throws {
            let folder = try Scratch()
            defer { folder.remove() }
            let path = folder.path("notes.jpg")
            try Data("This is a text file with a .jpg name, not a picture.\n".utf8).write(to: URL(fileURLWithPath: path))
            let error = focalError { try SourceImage.open(path: path) }
            #expect(error?.code == .inputNotAnImage)
            #expect(error?.source == path)
            #expect(error?.description.contains(path) == true)
        }

        @Test func directoryIsNotAFile() throws {
            let folder = try Scratch()
            defer { folder.remove() }
            let error = focalError { try SourceImage.open(path: folder.url.path) }
            #expect(error?.code == .inputNotAFile)
            #expect(error?.description.contains(folder.url.path) == true)
        }

        @Test func missingFileIsNotFound() throws {
            let folder = try Scratch()
            defer { folder.remove() }
            let path = folder.path("nowhere/missing.png")
            let error = focalError { try SourceImage.open(path: path) }
            #expect(error?.code == .inputNotFound)
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
                let error = focalError { try image.proxy(longSide: longSide) }
                #expect(error?.code == .inputCorrupt, "proxy \(longSide)")
                #expect(error?.source == "cut.jpg")
            }
            let crop = PixelRect(x: 0, y: 0, width: 512, height: 600)
            for format in ImageFormat.allCases {
                let error = focalError { try image.render(crop: crop, to: PixelSize(width: 100, height: 117)).encode(format) }
                let named = focalError { try image.encode(crop: crop, to: PixelSize(width: 100, height: 117), format: format) }
                #expect(error != nil && named != nil, "an error, not a picture")
                #expect(named?.description.contains("cut.jpg") == true)
                #expect(error?.code == .inputCorrupt, "encode \(format)")
                #expect(named?.code == .inputCorrupt)
            }
            let error = focalError { try image.render(crop: crop, to: PixelSize(width: 64, height: 75)).pixels() }
            #expect(error?.code == .inputCorrupt)
        }

        /// The same for a PNG cut short.
        @Test func truncatedPNGFailsToDecode() throws {
            let whole = try Fixture.coffee.data
            let image = try SourceImage.open(data: whole.prefix(whole.count * 6 / 10), name: "cut.png")
            let error = focalError { try image.proxy(longSide: 300) }
            #expect(error?.code == .inputCorrupt)
            #expect(error?.source == "cut.png")
        }

        /// A JPEG whose entropy-coded data was overwritten with garbage halfway: libjpeg warns and
        /// would fill in the rest, and any warning fails a JPEG, so it is `input.corrupt`.
        @Test func corruptJPEGDoesNotCrash() throws {
            var bytes = [UInt8](try Fixture.graceHopper.data)
            for i in stride(from: bytes.count / 2, to: bytes.count - 2, by: 7) { bytes[i] = 0xFF }
            let image = try SourceImage.open(data: Data(bytes))
            do {
                let proxy = try image.proxy(longSide: 100)
                #expect(proxy.size == PixelSize(width: 85, height: 100))
            } catch {
                #expect((error as? any FocalError)?.code == .inputCorrupt)
            }
        }
    }
}
