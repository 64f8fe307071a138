// `gestured actions` on the host (docs/PERFORMANCE.md, "Actions"). These machines have no uinput,
// so the virtual keyboard's write goes to a pipe (the same `write(2)` of `input_event`s that
// EventWriter makes to a uinput fd); the kernel's part of a uinput write and the compositor's are
// measured in the VM (EndToEndTests/Actions, "latency").
// - The planner alone: a report in, actions out (what the client adds per report, no I/O).
// - A published gesture → its shortcut's events read from the keyboard's pipe: the server's
//   encode and write, the client's read, decode and planner, the key events' encode and write,
//   through a real Unix socket and the real runner (ActionsRunner, GestureClient).

import Benchmark
import GestureActions
import GestureActionsRuntime
import GestureEngine
import GestureProtocol
import GestureServer
import Logging
import VirtualDevices

#if canImport(Glibc)
import Glibc
#endif

let benchmarks: @Sendable () -> Void = {
    let planner = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds, warmupIterations: 1000,
        maxDuration: .seconds(3), maxIterations: 200_000)
    Benchmark("planner: a pan's changed report → wheel motion", configuration: planner) { benchmark in
        var machine = ActionPlanner(
            ActionsConfiguration(actions: [ActionRule(recognizer: "pan", action: .scroll(Scroll()))]))
        var out: [ActionPlanner.Output] = []
        var report = Sample.report("pan", .pan, .began)
        machine.handle(report, into: &out)
        report.state = .changed
        for i in benchmark.scaledIterations {
            out.removeAll(keepingCapacity: true)
            report.translationMM = PhysicalVector(dx: Millimeters(0), dy: Millimeters(Double(i % 10_000) * 0.7))
            machine.handle(report, into: &out)
            blackHole(out.count)
        }
    }
    Benchmark("planner: a swipe → its shortcut", configuration: planner) { benchmark in
        var machine = ActionPlanner(
            ActionsConfiguration(actions: [
                ActionRule(
                    recognizer: "swipe", direction: .down,
                    action: .keys(KeyChord(["KEY_LEFTCTRL", "KEY_R"]), repeating: nil))
            ]))
        var out: [ActionPlanner.Output] = []
        let report = Sample.report("swipe", .swipe, .recognized, direction: .down)
        for _ in benchmark.scaledIterations {
            out.removeAll(keepingCapacity: true)
            machine.handle(report, into: &out)
            blackHole(out.count)
        }
    }

    Benchmark(
        "published swipe → Ctrl+R's events written by gestured actions (pipe for uinput)",
        configuration: .init(
            metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 200, maxDuration: .seconds(10),
            maxIterations: 20_000)
    ) { _, rig in
        rig.swipeToKeys()
    } setup: {
        try await ActionsRig.start()
    } teardown: {
        await ActionsRig.current?.stop()
    }
}

enum Sample {
    static func report(
        _ name: String, _ kind: GestureKind, _ state: GestureState, seq: UInt64 = 1, direction: Direction? = nil
    ) -> GestureMessage {
        var report = GestureReport(
            name: name, kind: kind, state: state, region: "root", fingers: 2,
            touches: TouchIDList([TouchID(1), TouchID(2)]), time: Timestamp(microseconds: 1_000_000),
            position: SurfacePoint(x: 0.5, y: 0.5))
        report.positionMM = PhysicalPoint(x: Millimeters(172), y: Millimeters(97))
        report.translationMM = PhysicalVector(dx: Millimeters(0), dy: Millimeters(0))
        report.direction = direction
        return GestureMessage(seq: seq, device: "event5", report: report)
    }
}

/// The keyboard's events into a pipe, as they would go to the uinput fd.
final class PipeKeyboard: ActionPerformer, @unchecked Sendable {
    let readEnd: Int32
    private let writeEnd: Int32
    private let codes: [String: UInt16]

    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw BenchmarkFailure("pipe failed") }
        readEnd = fds[0]
        writeEnd = fds[1]
        codes = [
            "KEY_LEFTCTRL": EventCode.code(ofType: EventCode.evKey, named: "KEY_LEFTCTRL")!,
            "KEY_R": EventCode.code(ofType: EventCode.evKey, named: "KEY_R")!,
        ]
    }

    func prepare(for configuration: ActionsConfiguration) throws(ActionsError) {}

    func tap(_ keys: [String]) throws(ActionsError) {
        var events: [RawEvent] = []
        InputEncoding.tap(keys.map { codes[$0]! }, into: &events)
        var writer = EventWriter(fileDescriptor: writeEnd)
        do { try writer.write(events) } catch { throw ActionsError("\(error)") }
    }

    func click(_ button: PointerButton, at place: PointerPlace, position: XY) throws(ActionsError) {}
    func wheel(_ motion: WheelMotion, at place: PointerPlace, position: XY) throws(ActionsError) {}
}

struct BenchmarkFailure: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// A server, `gestured actions`' runner connected to it, and the keyboard's pipe.
final class ActionsRig: @unchecked Sendable {
    nonisolated(unsafe) static var current: ActionsRig?
    let server: GestureServer
    let keyboard: PipeKeyboard
    let runner: Task<Void, Never>
    let directory: String
    private var seq: UInt64 = 0
    /// A chord's events: four keys and four reports, 24 bytes each.
    private var buffer = [UInt8](repeating: 0, count: 8 * 24)

    private init(server: GestureServer, keyboard: PipeKeyboard, runner: Task<Void, Never>, directory: String) {
        self.server = server
        self.keyboard = keyboard
        self.runner = runner
        self.directory = directory
    }

    /// A started server and runner, once the runner has subscribed (a published swipe came out
    /// of the pipe).
    static func start() async throws -> ActionsRig {
        var template = Array("/tmp/gactbench.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchmarkFailure("mkdtemp failed") }
        let directory = String(cString: made)
        var quiet = Logger(label: "bench")
        quiet.logLevel = .critical
        let server = GestureServer(
            configuration: .init(listener: .path(directory + "/g.sock"), daemonVersion: "bench"), delegate: nil,
            logger: quiet)
        try await server.start()
        let keyboard = try PipeKeyboard()
        let loaded = try ActionsLoader.parse(
            Array("actions:\n  - on: swipe\n    keys: [KEY_LEFTCTRL, KEY_R]\n".utf8), file: "bench.yaml"
        ) { _ in true }
        let actions = ActionsRunner(
            loaded: loaded, socket: directory + "/g.sock", performer: keyboard, commands: CommandRunner(logger: quiet),
            logger: quiet)
        let rig = ActionsRig(
            server: server, keyboard: keyboard, runner: Task { await actions.run() }, directory: directory)
        rig.waitUntilSubscribed()
        current = rig
        return rig
    }

    private func waitUntilSubscribed() {
        var fds = pollfd(fd: keyboard.readEnd, events: Int16(POLLIN), revents: 0)
        while true {
            publish()
            if poll(&fds, 1, 100) > 0 { break }
        }
        drain()
    }

    private func publish() {
        seq += 1
        server.publish([.gesture(Sample.report("swipe", .swipe, .recognized, seq: seq), owner: .configuration)])
    }

    private func drain() {
        var fds = pollfd(fd: keyboard.readEnd, events: Int16(POLLIN), revents: 0)
        while poll(&fds, 1, 50) > 0 { _ = read(keyboard.readEnd, &buffer, buffer.count) }
    }

    /// One swipe published; returns when all of its chord's events have been read.
    func swipeToKeys() {
        publish()
        var got = 0
        while got < buffer.count {
            let n = buffer.withUnsafeMutableBytes { read(keyboard.readEnd, $0.baseAddress! + got, $0.count - got) }
            if n > 0 { got += n }
        }
    }

    func stop() async {
        runner.cancel()
        await runner.value
        await server.shutdown()
    }
}
