// swift-tools-version:6.1
import PackageDescription

// Benchmarks live in their own package so that `swift test` of the main package stays fast and
// free of the benchmark dependencies. Run from this directory:
//   swift package --allow-writing-to-package-directory benchmark --target ReplayBenchmarks
let package = Package(
    name: "gestured-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(name: "gestured", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "ReplayBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GestureEngine", package: "gestured"),
                .product(name: "TouchInput", package: "gestured"),
            ],
            path: "Benchmarks/ReplayBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
