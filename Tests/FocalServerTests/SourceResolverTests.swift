import Focal
@testable import FocalServer
import FocalTestSupport
import Foundation
import Testing

/// Local paths stay under the root; URLs and ids are recognised.
@Suite struct SourceResolverTests {
    @Test func pathsUnderTheRoot() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.file("root/sub"), withIntermediateDirectories: true)
        try Data([1]).write(to: URL(fileURLWithPath: scratch.file("root/sub/a.jpg")))
        try Data([1]).write(to: URL(fileURLWithPath: scratch.file("secret.jpg")))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("root/out.jpg"), withDestinationPath: scratch.file("secret.jpg"))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("root/in.jpg"), withDestinationPath: scratch.file("root/sub/a.jpg"))
        try Data([1]).write(to: URL(fileURLWithPath: scratch.file("root/.hidden.jpg")))
        let resolver = try SourceResolver(root: scratch.file("root"))
        guard case let .input(input, relative) = try resolver.resolve("sub/a.jpg"), case let .file(path) = input.location else {
            Issue.record("not a file")
            return
        }
        #expect(path.hasSuffix("/root/sub/a.jpg") && relative == "sub/a.jpg")
        #expect(throws: Never.self) { try resolver.resolve("sub%2Fa.jpg") }
        #expect(throws: Never.self) { try resolver.resolve("in.jpg") }
        for escape in ["../secret.jpg", "sub/../../secret.jpg", "%2E%2E/secret.jpg", "..%2Fsecret.jpg", "/etc/passwd", "out.jpg",
                       ".hidden.jpg", "sub//a.jpg", "missing.jpg", "sub/a.jpg%00.png", ""] {
            #expect(throws: ServerError.self, "\(escape)") { try resolver.resolve(escape) }
        }
    }

    @Test func urlsAndIDs() throws {
        let resolver = try SourceResolver(root: nil)
        let url = try #require(URL(string: "https://example.com/a.jpg"))
        #expect(try resolver.resolve("https://example.com/a.jpg") == .input(.url(url), relative: nil))
        #expect(try resolver.resolve("https%3A%2F%2Fexample.com%2Fa.jpg") == .input(.url(url), relative: nil))
        let id = String(repeating: "ab", count: 32)
        #expect(try resolver.resolve("id:" + id) == .upload(id: id))
        #expect(throws: ServerError.self) { try resolver.resolve("id:123") }
        #expect(throws: ServerError.self) { try resolver.resolve("a.jpg") }  // no root
    }

    /// The service names sources through the library's readers: the same names, the same
    /// refusals, each with the reader's code; only the root's rules are the service's own.
    @Test func namesAreTheReaders() throws {
        let resolver = try SourceResolver(root: nil, allowedBuckets: ["open"])
        let size = PixelSize(width: 20, height: 10)
        let blank = try resolver.resolve("color:ff6600", size: size)
        #expect(blank == .input(try #require(try ImageInput.named("color:ff6600", size: size)), relative: nil))
        #expect(blank.relative == nil)
        let object = try resolver.resolve("s3://open/team/a.jpg")
        #expect(object == .input(.object(try #require(ObjectAddress("s3://open/team/a.jpg"))), relative: nil))
        for (name, code) in [
            ("color:ff6600", ErrorCode.requestInvalid),  // no size to make it at
            ("color:nocolour", .requestInvalid),
            ("s3://A_/b", .storageInvalidAddress),
            ("s3://closed/a.jpg", .storageNotAllowed),
            ("s3://open/../a.jpg", .inputNotFound),
            ("http://", .requestInvalid),
        ] {
            #expect("\(name)") { _ = try resolver.resolve(name, size: name == "color:nocolour" ? size : nil) } throws: {
                ($0 as? ServerError)?.code == code
            }
        }
    }
}
