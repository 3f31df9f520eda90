@testable import Focal
import FocalCore
import FocalImaging
import Foundation
import Testing

/// A source's name is read by the reader of its scheme, the same at every door: the library's
/// `ImageInput.named`, the command line, and the service (`SourceResolverTests`).
@Suite struct SourceNameTests {
    @Test("each scheme is its reader's, and a name in none is left to the door as a path")
    func schemes() throws {
        let size = PixelSize(width: 30, height: 20)
        #expect(try ImageInput.named("https://example.com/a.jpg")?.location == .url(try #require(URL(string: "https://example.com/a.jpg"))))
        #expect(try ImageInput.named("HTTP://example.com/a.jpg")?.location == .url(try #require(URL(string: "HTTP://example.com/a.jpg"))))
        #expect(try ImageInput.named("s3://photos/team/a.jpg")?.location == .object(try #require(ObjectAddress("s3://photos/team/a.jpg"))))
        let blank = try #require(try ImageInput.named("color:f60", size: size))
        #expect(blank == .blank(try BlankImage("color:ff6600", size: size)))
        #expect(blank.cacheName == "color:ff6600 30x20")
        for path in ["team/a.jpg", "/tmp/a.jpg", "id:abc", "colour:red", "httpx://a"] {
            #expect(try ImageInput.named(path) == nil, "\(path)")
            #expect(ImageInput.argument(path) == .file(path), "\(path)")
        }
    }

    @Test("a malformed name in a scheme is refused by its reader, with its code")
    func refusals() {
        #expect { try ImageInput.named("color:red") } throws: { ($0 as? PlanningError)?.code == .requestInvalid }
        #expect { try ImageInput.named("color:bluish", size: PixelSize(width: 2, height: 2)) } throws: {
            ($0 as? PlanningError)?.code == .requestInvalid
        }
        #expect { try ImageInput.named("color:red", size: PixelSize(width: 100_000, height: 2)) } throws: {
            ($0 as? PlanningError)?.code == .requestInvalid
        }
        #expect { try ImageInput.named("s3://NO_SUCH_BUCKET_NAME/a") } throws: { ($0 as? StorageError)?.code == .storageInvalidAddress }
        #expect { try ImageInput.named("https://") } throws: { ($0 as? ImagingError)?.code == .requestInvalid }
        // The command line's lenient reading keeps such a name a path, refused when it is read.
        #expect(ImageInput.argument("s3://NO_SUCH_BUCKET_NAME/a") == .file("s3://NO_SUCH_BUCKET_NAME/a"))
    }

    @Test("one reader per kind of location, each found by its scheme")
    func oneReaderPerScheme() throws {
        let names = FocalPipeline.sourceReaders.map(\.name)
        #expect(Set(names).count == names.count)
        let locations: [ImageInput.Location] = [
            .file("a.jpg"), .data(Data([1]), name: "b"), .url(try #require(URL(string: "https://example.com/a.jpg"))),
            .object(try #require(ObjectAddress("s3://photos/a.jpg"))), .blank(try BlankImage("color:red", size: PixelSize(width: 1, height: 1))),
        ]
        #expect(Set(locations.map(\.scheme)) == Set(names))
    }
}
