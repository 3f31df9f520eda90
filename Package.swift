// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "Focal",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Focal", targets: ["Focal"]),
        .library(name: "FocalCore", targets: ["FocalCore"]),
        .executable(name: "focal", targets: ["focal"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
    ],
    targets: [
        // libvips, found through pkg-config; wrapped by a C shim with an opaque, non-variadic header.
        .systemLibrary(
            name: "CVips", pkgConfig: "vips",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]),
        .target(name: "CFocalVips", dependencies: ["CVips"]),
        // OpenCV, used only by a C++17 shim whose extern "C" header hides every C++ type.
        .systemLibrary(
            name: "COpenCV", pkgConfig: "opencv4",
            providers: [.apt(["libopencv-dev"]), .brew(["opencv"])]),
        .target(name: "CFocalOpenCV", dependencies: ["COpenCV"]),

        .target(name: "FocalCore", swiftSettings: strict),
        .target(name: "FocalImaging", dependencies: ["FocalCore", "CFocalVips"], swiftSettings: strict),
        .target(name: "FocalDetection", dependencies: ["FocalCore", "CFocalOpenCV"], swiftSettings: strict),
        .target(
            name: "Focal",
            dependencies: [
                "FocalCore", "FocalImaging", "FocalDetection", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "focal",
            dependencies: ["Focal", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict),
        // `make bench`: crops per second in one process, cold and cached.
        .executableTarget(name: "focal-bench", dependencies: ["Focal"], path: "Benchmarks/focal-bench", swiftSettings: strict),

        .testTarget(
            name: "FocalCoreTests",
            dependencies: ["FocalCore", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: strict),
        .testTarget(name: "FocalImagingTests", dependencies: ["FocalImaging"], swiftSettings: strict),
        .testTarget(name: "FocalDetectionTests", dependencies: ["Focal"], swiftSettings: strict),
        .testTarget(
            name: "FocalTests",
            dependencies: ["Focal", .product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: strict),
    ],
    cxxLanguageStandard: .cxx17
)
