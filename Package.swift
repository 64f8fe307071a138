// swift-tools-version:6.2
import PackageDescription

// CI builds with GESTURED_STRICT=1: every warning in this package's own targets is an error.
// (Dependencies are built with warnings suppressed by SwiftPM, so -warnings-as-errors cannot be
// passed globally; this setting applies to our targets only.)
let strict = Context.environment["GESTURED_STRICT"] != nil
// Release builds leave out the run-time exclusivity checks (`-enforce-exclusivity=unchecked`):
// every access to a class's stored property on the frame path (the input loop's engine and event
// buffer, a device's frame assembler, each session) cost a `swift_beginAccess`/`endAccess` pair,
// 2–3 % of the daemon's CPU on the peer bench (docs/performance-history.md, "Frame path"). Debug builds —
// every test run — keep them, so a conflicting access still traps there.
let swiftSettings: [SwiftSetting] =
    (strict ? [.treatAllWarnings(as: .error)] : [])
    + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

// The daemon's release link on Linux (docs/performance-history.md, "Footprint"): lld instead of gold, so
// that relative relocations are packed (RELR; glibc ≥ 2.36, Debian 12's), our symbols are not
// exported (nothing loads the binary's symbols dynamically), and the functions a frame runs, then
// those start-up runs, are placed side by side (Sources/gestured/link.order, made by
// scripts/link-order.sh; "The frame path's pages"). Together they take idle RSS with a
// configuration from ~17 to ~11.5 MiB, and a frame's code pages by a third. Link-time optimization
// (6 % fewer instructions a frame: docs/PERFORMANCE.md, "Link-time optimization") is not here: a
// manifest cannot ask for it, so the scripts that build the daemon for use take SwiftPM's
// `--experimental-lto-mode=full` from scripts/shipped-build.sh (quickstart.sh passes it itself).
let daemonLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
            "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/gestured/link.order",
            "-Xlinker", "--no-warn-symbol-ordering",
        ],
        .when(platforms: [.linux], configuration: .release)
    )
]

let package = Package(
    name: "gestured",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gestured", targets: ["gestured"]),
        .library(name: "GestureEngine", targets: ["GestureEngine"]),
        // The touch values alone, for a tool that reads panels (TouchInput) without the engine.
        .library(name: "TouchValues", targets: ["TouchValues"]),
        .library(name: "GestureProtocol", targets: ["GestureProtocol"]),
        .library(name: "GestureClient", targets: ["GestureClient"]),
        // For the Benchmarks package (ServerBenchmarks) and for embedding the server elsewhere.
        .library(name: "GestureServer", targets: ["GestureServer"]),
        // For Benchmarks/ (replay throughput); the daemon links the target directly.
        .library(name: "TouchInput", targets: ["TouchInput"]),
        // What gestured writes to the kernel (Benchmarks/: the mirror's and the actions' events).
        .library(name: "VirtualDevices", targets: ["VirtualDevices"]),
        // For Benchmarks/ (ActionsBenchmarks) and for tools that act on gestures the same way.
        .library(name: "GestureActions", targets: ["GestureActions"]),
        .library(name: "GestureActionsRuntime", targets: ["GestureActionsRuntime"]),
        .library(name: "GestureMetrics", targets: ["GestureMetrics"]),
        // `gestured mqtt`'s machine and its edge, for tools that publish gestures the same way.
        .library(name: "GestureMQTT", targets: ["GestureMQTT"]),
        .library(name: "GestureMQTTRuntime", targets: ["GestureMQTTRuntime"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        // `gestured actions` starts commands with it (posix_spawn, pidfd, process groups, timeouts by
        // cancellation); without its Foundation trait, so it brings FoundationEssentials only.
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2", traits: []),
    ],
    targets: [
        // MARK: C edges
        .systemLibrary(
            name: "CEvdev",
            pkgConfig: "libevdev",
            providers: [.apt(["libevdev-dev"])]
        ),
        .systemLibrary(
            name: "CUdev",
            pkgConfig: "libudev",
            providers: [.apt(["libudev-dev"])]
        ),
        // The configuration's YAML library is libyaml (maintained, in every distribution, the C
        // library behind PyYAML and Yams), reached through our thin YAMLCoding target. Yams, its
        // Swift wrapper, was used before and dropped: it imports all of Foundation, whose ICU data
        // and code made up two thirds of the static binary (docs/performance-history.md, "Footprint").
        .systemLibrary(
            name: "CYaml",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .systemLibrary(
            name: "CMtdev",
            pkgConfig: "mtdev",
            providers: [.apt(["libmtdev-dev"])]
        ),
        // `gestured mqtt`'s MQTT client: Eclipse Mosquitto's libmosquitto (Debian's, TLS through
        // OpenSSL), reached only through GestureMQTTRuntime/Mosquitto.swift. Its header only:
        // Mosquitto.swift loads the library with dlopen, so that the daemon, the same binary, does
        // not load it and OpenSSL at every start (1.7 MB of resident memory, measured). So no
        // `pkgConfig:` here, whose `-lmosquitto` would link it all the same; mosquitto.h is in
        // /usr/include.
        .systemLibrary(
            name: "CMosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // epoll, timerfd, eventfd, accept4 and SO_PEERCRED need _GNU_SOURCE, which Glibc's module
        // does not define; this target defines it in its .c file only.
        .target(name: "CLinuxSupport"),

        // MARK: Swift targets
        // Touches, frames, time and geometry: the values the input side produces and the engine
        // consumes, so that the input side does not depend on the engine (which re-exports them).
        .target(
            name: "TouchValues",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GestureEngine",
            dependencies: ["TouchValues"],
            swiftSettings: swiftSettings
        ),
        // The kernel's input values both sides share: events and their codes, device descriptions
        // (capabilities, how contacts are reported, axes to surface coordinates, a mirror's marks),
        // the errors of a call or of a line. No C, no I/O.
        .target(
            name: "EvdevValues",
            dependencies: ["TouchValues"],
            swiftSettings: swiftSettings
        ),
        // The input side: panels found, read and followed (libevdev, libudev, mtdev), frames
        // assembled, recordings read and written.
        .target(
            name: "TouchInput",
            dependencies: [
                "TouchValues", "EvdevValues", "CEvdev", "CUdev", "CMtdev", "CLinuxSupport", "YAMLCoding",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The output side, what gestured writes to the kernel through uinput: the passthrough
        // mirror, the actions' keyboard and pointers, simulate's touchscreens (and the scripts,
        // profiles and encoders that drive them). Stands on the input side's values alone: no
        // libudev, no mtdev, no frame assembler.
        .target(
            name: "VirtualDevices",
            dependencies: ["TouchValues", "EvdevValues", "CEvdev", "CLinuxSupport"],
            swiftSettings: swiftSettings
        ),
        // YAML for the configuration: libyaml's parser and emitter, a node tree with positions,
        // and a Decoder/Encoder over it so the definitions' Codable reads YAML as it reads JSON.
        .target(
            name: "YAMLCoding",
            dependencies: ["CYaml"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GestureMetrics",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GestureProtocol",
            dependencies: ["GestureEngine", "GestureMetrics", "EvdevValues"],
            swiftSettings: swiftSettings
        ),
        // The journal's rate limit on warnings a peer could repeat (LogThrottle): the server's, the
        // daemon's and the actions and mqtt clients', which need nothing else of the server.
        .target(
            name: "GestureLogging",
            dependencies: [
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GestureServer",
            dependencies: [
                "GestureProtocol", "GestureEngine", "GestureMetrics", "CLinuxSupport", "GestureLogging",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The WebSocket endpoint for browsers (WebSocketListener.swift): swift-nio's own.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GestureClient",
            dependencies: [
                // SO_PEERCRED's struct, for who serves the socket (ServerCredentials).
                "GestureProtocol", "GestureEngine", "CLinuxSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GestureDaemon",
            dependencies: [
                "GestureEngine", "TouchInput", "VirtualDevices", "GestureProtocol", "GestureServer", "CLinuxSupport",
                "YAMLCoding", "GestureMetrics", "GestureLogging",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["GesturedVersion"]
        ),
        // `gestured actions`: what a gesture does, as a pure state machine (gesture message in, actions
        // out) with its configuration file; no device, no socket, no process.
        .target(
            name: "GestureActions",
            dependencies: ["GestureEngine", "GestureProtocol", "YAMLCoding"],
            swiftSettings: swiftSettings
        ),
        // Its edge: the socket client that feeds the machine, the uinput keyboard and pointers that
        // carry out keys, clicks and scrolling (VirtualDevices: no libudev, no mtdev), and the
        // commands it starts.
        .target(
            name: "GestureActionsRuntime",
            dependencies: [
                "GestureActions", "GestureClient", "GestureEngine", "GestureProtocol", "VirtualDevices",
                // The journal's rate limit (LogThrottle), for commands' output and refusals.
                "GestureLogging", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        // `gestured mqtt`: what goes to an MQTT broker and what comes from it, as values with no I/O —
        // the mqtt file, topics, the bounded queue, Home Assistant's discovery, the inbound topics'
        // rules (named in the actions file, read with GestureActions).
        .target(
            name: "GestureMQTT",
            dependencies: ["GestureEngine", "GestureProtocol", "GestureActions", "YAMLCoding"],
            swiftSettings: swiftSettings
        ),
        // Its edge: libmosquitto on a thread of its own, the daemon's socket, and the actions'
        // keyboard and commands for the rules an inbound topic names.
        .target(
            name: "GestureMQTTRuntime",
            dependencies: [
                "GestureMQTT", "GestureActions", "GestureActionsRuntime", "GestureClient", "GestureProtocol",
                "CMosquitto", "CLinuxSupport", "GestureLogging",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // `gesturedVersion` from the VERSION file, the one place the version is said.
        .plugin(name: "GesturedVersion", capability: .buildTool()),
        .executableTarget(
            name: "gestured",
            dependencies: [
                "GestureDaemon", "GestureClient", "GestureProtocol", "GestureEngine", "TouchInput", "VirtualDevices",
                "CLinuxSupport",
                // `simulate --script` reads its file as the configuration is read (YAMLFile.contents).
                "YAMLCoding",
                // `gestured actions`.
                "GestureActions", "GestureActionsRuntime",
                // `gestured mqtt`.
                "GestureMQTT", "GestureMQTTRuntime",
                // `gestured status --format openmetrics`: the metrics endpoint's writer.
                "GestureMetrics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["link.order"],
            swiftSettings: swiftSettings,
            linkerSettings: daemonLinkerSettings
        ),

        // MARK: Tests
        // Helpers shared by the test targets: child processes, waiting with deadlines, a log capture.
        .target(
            name: "TestSupport", dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport", swiftSettings: swiftSettings),
        .testTarget(
            // GestureProtocol: the explanations' sentences (ExplainMessage) the golden scenarios check.
            name: "GestureEngineTests", dependencies: ["GestureEngine", "GestureProtocol", "TestSupport"],
            exclude: ["Scenarios", "Fixtures"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TouchInputTests",
            dependencies: [
                // GestureEngine: the mirror's tests run the engine's claims (MirrorEncoderTests).
                // VirtualDevices: what the output side writes is read back through the input side.
                "TouchInput", "VirtualDevices", "TouchValues", "GestureEngine", "CEvdev", "CLinuxSupport",
                "TestSupport", "YAMLCoding",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GestureServerTests",
            dependencies: [
                "GestureServer", "GestureClient", "GestureProtocol", "GestureEngine", "GestureMetrics", "EvdevValues",
                "TouchValues", "GestureLogging", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The real-kernel suite (scripts/e2e.sh): skipped where /dev/uinput is not writable.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "GestureClient", "GestureProtocol", "GestureEngine", "TestSupport",
                // The passthrough cases read and grab event nodes (PassthroughTests.swift); the actions
                // cases read the virtual keyboard's and pointers' nodes and name their codes.
                "TouchInput", "VirtualDevices", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "GestureActionsTests",
            dependencies: [
                "GestureActions", "GestureActionsRuntime", "GestureServer", "GestureProtocol", "GestureEngine",
                "GestureClient", "VirtualDevices", "TestSupport", "GestureLogging",
                .product(name: "Logging", package: "swift-log"),
                // A clock for LogThrottle (NIODeadline).
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "GestureMQTTTests",
            dependencies: [
                "GestureMQTT", "GestureActions", "GestureProtocol", "GestureEngine", "YAMLCoding", "TestSupport",
            ],
            swiftSettings: swiftSettings),
        .testTarget(name: "YAMLCodingTests", dependencies: ["YAMLCoding", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "GestureDaemonTests",
            dependencies: [
                "GestureDaemon", "GestureProtocol", "GestureClient", "GestureEngine", "GestureServer", "TouchInput",
                "TestSupport", "GestureMetrics",
                // The metrics endpoint's connections on an embedded channel (MetricsEndpointTests).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                // A real loop for the endpoint's listener (the daemon passes its server's).
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures", "Golden"],
            swiftSettings: swiftSettings),
    ]
)
