// swift-tools-version:6.1
import PackageDescription

// Benchmarks live in their own package so that `swift test` of the main package stays fast and
// free of the benchmark dependencies. Run from this directory (release build; docs/PERFORMANCE.md):
//   swift package --disable-sandbox benchmark [--target EngineBenchmarks|ServerBenchmarks|ReplayBenchmarks]
let package = Package(
    name: "gestured-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        // Named, so the identity does not depend on the checkout directory's name.
        .package(name: "gestured", path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // Frames through the default recognizer set (docs/PERFORMANCE.md, "Engine").
        .executableTarget(
            name: "EngineBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GestureEngine", package: "gestured"),
            ],
            path: "Benchmarks/EngineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Publish → line read by a client, through a real Unix socket (docs/PERFORMANCE.md, "Socket").
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
        ),
        // Parse + assemble (+ engine) of a 1M-event evemu recording (docs/PERFORMANCE.md, "Replay").
        .executableTarget(
            name: "ReplayBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GestureEngine", package: "gestured"),
                .product(name: "TouchInput", package: "gestured"),
                // The benchmark's recording is drawn by a gesture script through the contact encoder.
                .product(name: "VirtualDevices", package: "gestured"),
            ],
            path: "Benchmarks/ReplayBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // `gestured actions`: the planner, and a published gesture → its key events (docs/PERFORMANCE.md, "Actions").
        .executableTarget(
            name: "ActionsBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GestureActions", package: "gestured"),
                .product(name: "GestureActionsRuntime", package: "gestured"),
                .product(name: "GestureServer", package: "gestured"),
                .product(name: "GestureProtocol", package: "gestured"),
                .product(name: "GestureEngine", package: "gestured"),
                .product(name: "VirtualDevices", package: "gestured"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/ActionsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Encode + write of the passthrough mirror's frames (docs/PERFORMANCE.md, "Passthrough").
        .executableTarget(
            name: "PassthroughBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GestureEngine", package: "gestured"),
                .product(name: "VirtualDevices", package: "gestured"),
            ],
            path: "Benchmarks/PassthroughBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
