import FocalCore
import FocalImaging
import Foundation
import FocalTestSupport
import FocalTools
import Testing

extension LibvipsLayer {
    /// `AtomicFile.write`: whole content or nothing, no temporary files left behind.
    @Suite("AtomicFile") struct AtomicFileTests {
        @Test func writesTheContent() throws {
            let folder = try Scratch()
            defer { folder.remove() }
            let path = folder.path("out.jpg")
            let data = try Fixture.graceHopper.data
            try AtomicFile.write(data, to: path)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == data)
            #expect(folder.contents == ["out.jpg"])
        }

        @Test func writesAnEmptyFile() throws {
            let folder = try Scratch()
            defer { folder.remove() }
            try AtomicFile.write(Data(), to: folder.path("empty"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("empty"))).isEmpty)
            #expect(folder.contents == ["empty"])
        }

        @Test func replacesAnExistingFile() throws {
            let folder = try Scratch()
            defer { folder.remove() }
            let path = folder.path("out.png")
            try Data(repeating: 7, count: 10_000).write(to: URL(fileURLWithPath: path))
            let new = Data("short".utf8)
            try AtomicFile.write(new, to: path)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == new, "replaced, not overwritten in place")
            #expect(folder.contents == ["out.png"])
        }

        @Test func leavesNoTemporaryFiles() throws {
            let folder = try Scratch()
            defer { folder.remove() }
            for i in 0..<20 { try AtomicFile.write(Data("round \(i)".utf8), to: folder.path("file\(i % 3)")) }
            #expect(folder.contents == ["file0", "file1", "file2"])
            #expect(try String(contentsOfFile: folder.path("file1"), encoding: .utf8) == "round 19")
        }

        @Test func missingFolderIsAnIOErrorAndLeavesNothing() throws {
            let folder = try Scratch()
            defer { folder.remove() }
            let path = folder.path("missing/out.jpg")
            let error = focalError { try AtomicFile.write(Data("x".utf8), to: path) }
            #expect(error?.code == .outputWriteFailed)
            #expect(error?.source == path)
            #expect(error?.description.contains(path) == true)
            #expect(folder.contents.isEmpty)
        }

        /// Renaming onto a folder fails after the temporary file was written: it must be removed.
        @Test func failedRenameRemovesTheTemporaryFile() throws {
            let folder = try Scratch()
            defer { folder.remove() }
            let target = folder.path("taken")
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
            try Data("keep".utf8).write(to: URL(fileURLWithPath: folder.path("taken/inside")))
            let error = focalError { try AtomicFile.write(Data("x".utf8), to: target) }
            #expect(error?.code == .outputWriteFailed)
            #expect(error?.source == target)
            #expect(folder.contents == ["taken"], "no temporary file left beside it")
            #expect(try String(contentsOfFile: folder.path("taken/inside"), encoding: .utf8) == "keep")
        }

        /// Readers racing the writer see the old content or the new one, never a mixture.
        @Test func readersSeeOldOrNewContent() async throws {
            let folder = try Scratch()
            defer { folder.remove() }
            let path = folder.path("shared")
            let old = Data(repeating: 0x41, count: 200_000), new = Data(repeating: 0x42, count: 300_000)
            try AtomicFile.write(old, to: path)
            let reader = Task.detached { () -> Bool in
                for _ in 0..<200 {
                    guard let seen = FileManager.default.contents(atPath: path), seen == old || seen == new else { return false }
                }
                return true
            }
            for i in 0..<50 { try AtomicFile.write(i % 2 == 0 ? new : old, to: path) }
            #expect(await reader.value)
            #expect(folder.contents == ["shared"])
        }
    }
}
