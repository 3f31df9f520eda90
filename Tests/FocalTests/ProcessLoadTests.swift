import Focal
import FocalTestSupport
import Foundation
import Testing

/// What one `focal` process loads: only the libvips modules and OpenVINO files its photo needs
/// (each checked through the dynamic loader's own log, `LD_DEBUG=files`), and what `focal doctor`
/// says about the precisions.
@Suite struct ProcessLoadTests {
    /// The shared objects the process opened, by file name.
    static func opened(_ arguments: [String]) async throws -> (run: Run, files: Set<String>) {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "files"
        let run = try await Run(arguments, environment: environment)
        let files = run.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "opening file=") else { return nil }
            let path = line[range.upperBound...].prefix { $0 != " " }
            return String(path.split(separator: "/").last ?? "")
        }
        return (run, Set(files))
    }

    @Test("a JPEG crop loads no libvips module; an AVIF output loads the HEIF module and never ImageMagick, poppler or OpenSlide")
    func modulesOnDemand() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let jpeg = try await Self.opened(["crop", Checkout.fixture("grace_hopper.jpg"), "--size", "64x64", "--no-detect", "-o", scratch.file("a.jpg")])
        #expect(jpeg.run.status == 0, "\(jpeg.run.stderr.suffix(500))")
        #expect(!jpeg.files.contains { $0.hasPrefix("vips-") }, "\(jpeg.files.filter { $0.hasPrefix("vips-") })")
        let avif = try await Self.opened(
            ["crop", Checkout.fixture("grace_hopper.jpg"), "--size", "64x64", "--no-detect", "--format", "avif", "-o", scratch.file("a.avif")])
        #expect(avif.run.status == 0, "\(avif.run.stderr.suffix(500))")
        #expect(avif.files.contains("vips-heif.so"))
        #expect(try SourceImage.open(path: scratch.file("a.avif")).format == "avif")
        for never in ["vips-magick.so", "vips-poppler.so", "vips-openslide.so"] {
            #expect(!jpeg.files.contains(never) && !avif.files.contains(never), "\(never) was loaded")
        }
    }

    @Test("focal doctor names the CPU's features and each detector's precision; --precision fp32 makes both fp32")
    func doctor() async throws {
        let auto = try await Run(["doctor", "--json"])
        #expect(auto.status == 0, "\(auto.stderr)")
        let report = try #require(auto.objects.first)
        #expect(report["cpu"] as? String == CPUFeatures.current.description)
        let objects = try #require(report["precision_objects"] as? String)
        #expect(objects == (InferencePrecision.supportedByCPU.contains(.int8) ? "int8" : "fp32"))
        #expect(report["precision_faces"] as? String == "fp32")
        let capabilities = try #require(report["openvino_capabilities"] as? String)
        // OpenVINO's own view agrees with CPUID's: bf16 where, and only where, it says BF16.
        #expect(capabilities.split(separator: " ").contains("BF16") == CPUFeatures.current.contains(.bf16), "\(capabilities)")
        let fp32 = try await Run(["doctor", "--json", "--precision", "fp32"])
        let forced = try #require(fp32.objects.first)
        #expect(forced["precision_objects"] as? String == "fp32" && forced["precision_faces"] as? String == "fp32")
    }
}
