// swift-tools-version:6.0
import PackageDescription

// Every Swift target: existentials spelled `any`, imports internal unless marked `public`, and
// members visible only from modules a file imports itself.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// Test targets: existentials spelled `any`; imports as usual.
let testing: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "Focal",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Focal", targets: ["Focal"]),
        .library(name: "FocalCore", targets: ["FocalCore"]),
        .library(name: "FocalServer", targets: ["FocalServer"]),
        .executable(name: "focal", targets: ["focal"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // `make docs`: the library's DocC reference (a command plugin; nothing of it is built into a product).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // libvips, found through pkg-config; wrapped by a C shim with an opaque, non-variadic header.
        .systemLibrary(
            name: "CVips", pkgConfig: "vips",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]),
        .target(name: "CFocalVips", dependencies: ["CVips"], linkerSettings: [.linkedLibrary("gmodule-2.0")]),
        // OpenVINO's C API (from its PyPI wheel, unpacked by `scripts/setup.sh deps`, which writes
        // the openvino.pc the Makefile puts on PKG_CONFIG_PATH), used only by a C shim with an
        // opaque header: the two detectors, the resampling, NMS and the saliency map. Headers
        // only: the shim opens the library with dlopen when a model is first needed.
        .systemLibrary(name: "COpenVINO", pkgConfig: "openvino"),
        .target(name: "CFocalInference", dependencies: ["COpenVINO"]),

        // Pure Swift: geometry, subjects, the planner, the detector protocol, the error protocol.
        .target(name: "FocalCore", swiftSettings: strict),
        // Package-internal plumbing: the bounded native work pool, checked conversions, C buffers.
        .target(name: "FocalRuntime", dependencies: ["FocalCore"], swiftSettings: strict),
        .target(name: "FocalImaging", dependencies: ["FocalCore", "FocalRuntime", "CFocalVips"], swiftSettings: strict),
        .target(name: "FocalDetection", dependencies: ["FocalCore", "FocalRuntime", "CFocalInference"], swiftSettings: strict),
        // The hardened URL fetcher: AsyncHTTPClient with timeouts, byte limits and redirects one
        // by one, the SSRF address policy, the resolver it judges and the allow-list of sources;
        // and the S3 client (Signature V4 on swift-crypto) for buckets.
        .target(
            name: "FocalFetch",
            dependencies: [
                "FocalCore", "FocalImaging",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict),
        // The library: the crop as a pipeline of steps, detection stages, caches, shared jobs, one async API.
        .target(
            name: "Focal",
            dependencies: [
                "FocalCore", "FocalRuntime", "FocalImaging", "FocalDetection", "FocalFetch",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict),
        // The HTTP service: thumbor's URL grammar, signing, the JSON API, metrics.
        .target(
            name: "FocalServer",
            dependencies: [
                "Focal", "FocalImaging",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            resources: [.copy("Web")],
            swiftSettings: strict),
        // What only the command line needs: evaluation, contact sheets, debug overlays, drawing.
        .target(name: "FocalTools", dependencies: ["FocalCore", "Focal", "FocalImaging", "FocalRuntime"], swiftSettings: strict),
        .executableTarget(
            name: "focal",
            dependencies: [
                "Focal", "FocalTools", "FocalImaging", "FocalRuntime", "FocalServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // Helpers shared by the test targets: checkout paths, scratch folders, running `focal`,
        // a loopback HTTP server, a gate detector, pixel statistics.
        .target(
            name: "FocalTestSupport",
            dependencies: ["Focal", "FocalTools", "FocalImaging", "FocalFetch", .product(name: "Hummingbird", package: "hummingbird")],
            path: "Tests/FocalTestSupport", swiftSettings: strict),
        .testTarget(
            name: "FocalCoreTests",
            dependencies: ["FocalCore", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: testing),
        .testTarget(
            name: "FocalImagingTests", dependencies: ["FocalImaging", "FocalRuntime", "FocalTools", "FocalTestSupport"],
            swiftSettings: testing),
        .testTarget(
            name: "FocalDetectionTests", dependencies: ["Focal", "FocalTestSupport"], exclude: ["Reference"], swiftSettings: testing),
        .testTarget(name: "FocalToolsTests", dependencies: ["FocalTools", "FocalImaging", "FocalTestSupport"], swiftSettings: testing),
        .testTarget(
            name: "FocalServerTests",
            dependencies: [
                "FocalServer", "FocalTestSupport", .product(name: "HummingbirdTesting", package: "hummingbird"),
                // `focal serve`'s options, parsed in ServeSettingTests.
                "focal",
                .product(name: "Logging", package: "swift-log"),
                // Writes an old overrides database in OverrideStoreTests.
                .product(name: "GRDB", package: "GRDB.swift"),
                // Reads gzipped web files back in WebAssetTests.
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: testing),
        .testTarget(
            name: "FocalFetchTests",
            dependencies: ["FocalCore", "FocalFetch", "Focal", "FocalTestSupport", "FocalImaging", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: testing),
        .testTarget(
            name: "FocalTests",
            dependencies: ["Focal", "FocalRuntime", "FocalImaging", "FocalTestSupport"],
            swiftSettings: testing),
    ],
    cxxLanguageStandard: .cxx17
)

// `make fuzz` (FOCAL_FUZZ=1): the libFuzzer target, bytes in and crop out. It is in no other build;
// its sanitizer flags come from the Makefile's command line, never from this manifest.
if Context.environment["FOCAL_FUZZ"] == "1" {
    package.targets += [
        .target(name: "CFocalFuzz", path: "Fuzz/CFocalFuzz"),
        .executableTarget(
            name: "focal-fuzz", dependencies: ["CFocalFuzz", "FocalCore", "FocalImaging"], path: "Fuzz/focal-fuzz",
            swiftSettings: strict),
    ]
    package.products.append(.executable(name: "focal-fuzz", targets: ["focal-fuzz"]))
}

// `make bench` (FOCAL_BENCH=1): the benchmark executables, crops per second in one process, cold and
// cached. Like the fuzz target they are in no other build, so `swift build` and `make test` skip them.
if Context.environment["FOCAL_BENCH"] == "1" {
    package.targets.append(
        .executableTarget(
            name: "focal-bench", dependencies: ["Focal", "FocalRuntime"], path: "Benchmarks/focal-bench", swiftSettings: strict))
    package.products.append(.executable(name: "focal-bench", targets: ["focal-bench"]))
}
