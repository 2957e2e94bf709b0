// swift-tools-version:5.9
// The LatencyLab iOS harness: the measurement core (Sources/HarnessCore, a Swift mirror of the
// Kotlin core in ../android/core) and the XCTest that runs one job on an iPhone (BenchTests).
// Not built where this repository is tested (no Xcode, no Swift toolchain there): see README.md.
import PackageDescription

let package = Package(
    name: "LatencyLabHarness",
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        .library(name: "HarnessCore", targets: ["HarnessCore"]),
    ],
    dependencies: [
        // gRPC Swift 1.x (interceptors with explicit request/response parts; maintenance mode upstream).
        .package(url: "https://github.com/grpc/grpc-swift.git", exact: "1.23.0"),
    ],
    targets: [
        .target(
            name: "HarnessCore",
            dependencies: [.product(name: "GRPC", package: "grpc-swift")],
            path: "Sources/HarnessCore"
        ),
        .testTarget(
            name: "LatencyLabBenchTests",
            dependencies: ["HarnessCore"],
            path: "BenchTests"
        ),
    ]
)
