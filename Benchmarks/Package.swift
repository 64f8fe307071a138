// swift-tools-version:6.1
// Benchmarks live in their own package so `swift test` on the main package stays fast.
// Run: `cd Benchmarks && swift package benchmark` (release build; see docs/PERFORMANCE.md).
import PackageDescription

let package = Package(
    name: "gestured-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        // Named, so the identity does not depend on the checkout directory's name.
        .package(name: "gestured", path: ".."),
    ],
    targets: [
        // Publish → line read by a client, through a real Unix socket (docs/PERFORMANCE.md).
        .executableTarget(
            name: "ServerBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GestureServer", package: "gestured"),
                .product(name: "GestureProtocol", package: "gestured"),
                .product(name: "GestureEngine", package: "gestured"),
            ],
            path: "Benchmarks/ServerBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
