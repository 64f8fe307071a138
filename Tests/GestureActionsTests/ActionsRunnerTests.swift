import Foundation
import GestureActions
import GestureActionsRuntime
import GestureEngine
import GestureProtocol
import GestureServer
import Logging
import Synchronization
import TestSupport
import Testing

/// Stands in for the uinput devices on machines without uinput (the VM suite has the real ones):
/// records what it was asked to do, with the monotonic time.
final class RecordingPerformer: ActionPerformer {
    struct Act: Sendable, Equatable {
        var what: String
        var at: Int64 = 0
        static func == (a: Act, b: Act) -> Bool { a.what == b.what }
    }

    let acts = Observed<[Act]>([])
    let prepared = Observed<[ActionsConfiguration]>([])
    /// Set: the next prepare fails as uinput would.
    let refuse = Mutex<ActionsError?>(nil)

    func prepare(for configuration: ActionsConfiguration) throws(ActionsError) {
        if let error = refuse.withLock({ $0 }) { throw error }
        prepared.update { $0.append(configuration) }
    }

    func tap(_ keys: [String]) throws(ActionsError) {
        record("keys \(keys.joined(separator: "+"))")
    }

    func click(_ button: PointerButton, at place: PointerPlace, position: XY) throws(ActionsError) {
        record("click \(button.rawValue) at \(place.rawValue) \(position.x),\(position.y)")
    }

    func wheel(_ motion: WheelMotion, at place: PointerPlace, position: XY) throws(ActionsError) {
        record("wheel \(motion.vertical)")
    }

    private func record(_ what: String) {
        let now = monotonicNanoseconds()
        acts.update { $0.append(Act(what: what, at: now)) }
    }

    func waitFor(_ count: Int, _ what: String = "actions") async throws {
        try await acts.wait(for: "\(count) \(what)", within: LogLines.deadline) { $0.count >= count }
    }
}

/// Log lines, to wait for the runner's journal lines.
final class LogLines: Sendable {
    let lines = Observed<[String]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(lines: self.lines) }
    }

    /// How long a wait for the runner may take. The runner is a task of the test process: while
    /// the suite's CPU-bound tests hold both of a 2-core host's cooperative threads (the whole
    /// host suite at once), each of its steps — connect, hello, subscribe, its log line — waits
    /// its turn, and in the full suite its connection once took over 60 s where it takes
    /// milliseconds alone.
    static let deadline = Duration.seconds(300)

    func waitFor(_ text: String, count: Int = 1) async throws {
        try await lines.wait(for: "\(count)× '\(text)' in the log", within: Self.deadline) {
            $0.count { $0.contains(text) } >= count
        }
    }

    func count(_ text: String) -> Int { lines.value.count { $0.contains(text) } }

    struct Handler: LogHandler {
        let lines: Observed<[String]>
        var logLevel: Logger.Level = .debug
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            var line = "\(event.level) \(event.message)"
            for (k, v) in (event.metadata ?? [:]).sorted(by: { $0.key < $1.key }) { line += " \(k)=\(v)" }
            lines.update { $0.append(line) }
        }
    }
}

func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// A real daemon-side server on a socket in a temporary directory, publishing what a test says,
/// and `gestured actions`' runner connected to it.
final class RunnerFixture: Sendable {
    let directory: String
    var socket: String { directory + "/g.sock" }
    let performer = RecordingPerformer()
    let log = LogLines()
    let commands: CommandRunner
    let runner: ActionsRunner
    private let servers = Mutex<[GestureServer]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    static let recognizers = [
        RecognizerSummary(name: "swipe", kind: .swipe, owner: .configuration, region: "root"),
        RecognizerSummary(name: "tap", kind: .tap, owner: .configuration, region: "root"),
        RecognizerSummary(name: "pan", kind: .pan, owner: .configuration, region: "root"),
        RecognizerSummary(name: "long-press", kind: .longPress, owner: .configuration, region: "root"),
    ]

    init(_ text: String) throws {
        var template = Array("/tmp/gact.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        directory = String(cString: made)
        let loaded = try parse(text.replacingOccurrences(of: "$DIR", with: directory))
        commands = CommandRunner(logger: log.logger)
        runner = ActionsRunner(
            loaded: loaded, socket: directory + "/g.sock", performer: performer, commands: commands, logger: log.logger)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts a server (a "daemon") on the socket; the runner's `hello` lists `recognizers`.
    @discardableResult
    func startServer(recognizers: [RecognizerSummary] = RunnerFixture.recognizers) async throws -> GestureServer {
        var logger = Logger(label: "test.server")
        logger.logLevel = .critical
        let server = GestureServer(
            configuration: .init(listener: .path(socket), daemonVersion: "0.0.0-test"), delegate: nil, logger: logger)
        try await server.start()
        server.publish([.recognizers(recognizers)])
        servers.withLock { $0.append(server) }
        return server
    }

    func startRunner() {
        let runner = self.runner
        task.withLock { $0 = Task { await runner.run() } }
    }

    /// Waits until the runner's `count`th connection has subscribed (its subscription is in place
    /// before its `connected` line).
    func waitForConnection(_ count: Int = 1) async throws {
        try await log.waitFor("info connected", count: count)
    }

    /// A server with the configuration's recognizers, the runner started and connected to it.
    func connected() async throws -> GestureServer {
        let server = try await startServer()
        startRunner()
        try await waitForConnection()
        return server
    }

    func stop() async {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
        await commands.stopAll()
        for server in servers.withLock({ $0 }) { await server.shutdown() }
    }

    /// Runs `body` with a fixture, stopping everything after it even when it throws.
    static func with(_ text: String, _ body: (RunnerFixture) async throws -> Void) async throws {
        let fixture = try RunnerFixture(text)
        do {
            try await body(fixture)
        } catch {
            Issue.record("log:\n\(fixture.log.lines.value.suffix(20).joined(separator: "\n"))")
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func swipe(_ seq: UInt64, direction: Direction = .down, fingers: Int = 3) -> Publication {
    .gesture(
        Report.gesture("swipe", .swipe, .recognized, seq: seq, fingers: fingers, direction: direction),
        owner: .configuration)
}

func tap(_ seq: UInt64) -> Publication {
    .gesture(Report.gesture("tap", .tap, .recognized, seq: seq), owner: .configuration)
}

@Suite("gestured actions over a real socket", .serialized, .timeLimit(.minutes(10)))
struct ActionsRunnerTests {
    static let shortcut = """
        actions:
          - on: swipe
            direction: down
            keys: [KEY_LEFTCTRL, KEY_R]
          - on: long-press
            click: right

        """

    @Test("a swipe down from the daemon taps the shortcut; a long press right-clicks where it is")
    func shortcutAndClick() async throws {
        try await RunnerFixture.with(Self.shortcut) { f in
            let server = try await f.connected()
            server.publish([
                swipe(1, direction: .up), swipe(2),
                .gesture(
                    Report.gesture("long-press", .longPress, .began, seq: 3, position: XY(x: 0.5, y: 0.25)),
                    owner: .configuration),
            ])
            try await f.performer.waitFor(2)
            #expect(
                f.performer.acts.value.map(\.what) == ["keys KEY_LEFTCTRL+KEY_R", "click right at gesture 0.5,0.25"])
        }
    }

    @Test("a run action starts its command with the gesture in its environment")
    func runWritesEnvironment() async throws {
        let text = """
            actions:
              - on: swipe
                run: ["/bin/sh", "-c", "env | grep ^GESTURED_ | sort > $DIR/env.txt"]

            """
        try await RunnerFixture.with(text) { f in
            let server = try await f.connected()
            server.publish([swipe(7, direction: .left)])
            try await f.log.waitFor("debug command finished")
            let written = try String(contentsOfFile: f.directory + "/env.txt", encoding: .utf8)
            for line in ["GESTURED_NAME=swipe", "GESTURED_DIRECTION=left", "GESTURED_FINGERS=3", "GESTURED_SEQ=7"] {
                #expect(written.contains(line + "\n"), "\(written)")
            }
        }
    }

    @Test("on: idle and on: active run their commands when the daemon says the panel went idle and active again")
    func idleAndActive() async throws {
        let text = """
            actions:
              - on: idle
                run: ["/bin/sh", "-c", "env | grep ^GESTURED_ | sort > $DIR/idle.txt"]
              - on: active
                shell: "echo $GESTURED_EVENT $GESTURED_TOUCH > $DIR/active.txt"
              - on: wake
                keys: [KEY_WAKEUP]

            """
        try await RunnerFixture.with(text) { f in
            let server = try await f.connected()
            server.publish([
                .announcement(.idle(IdleMessage(device: "event5", time: Timestamp(microseconds: 5_000_000), afterMS: 1000))),
                .announcement(
                    .wake(
                        WakeMessage(
                            device: "event5", time: Timestamp(microseconds: 6_000_000), touch: TouchID(4),
                            position: SurfacePoint(x: 0.5, y: 0.5), cause: .idle))),
                .announcement(.active(ActiveMessage(device: "event5", time: Timestamp(microseconds: 6_000_000), touch: TouchID(4)))),
            ])
            try await f.log.waitFor("debug command finished", count: 2)
            // What the command's environment says beyond what it inherits (CI sets GESTURED_STRICT
            // and GESTURED_CORPUS for the whole run).
            let inherited = Set(ProcessInfo.processInfo.environment.keys)
            let idle = try String(contentsOfFile: f.directory + "/idle.txt", encoding: .utf8)
                .split(separator: "\n").filter { !inherited.contains(String($0.prefix { $0 != "=" })) }
            #expect(
                idle == ["GESTURED_DEVICE=event5", "GESTURED_EVENT=idle", "GESTURED_IDLE_MS=1000", "GESTURED_TIME_US=5000000"],
                "\(idle)")
            let active = try String(contentsOfFile: f.directory + "/active.txt", encoding: .utf8)
            #expect(active == "active 4\n")
            try await f.performer.waitFor(1)
            #expect(f.performer.acts.value.map(\.what) == ["keys KEY_WAKEUP"])
        }
    }

    @Test("a command that does not exist: a journal line naming it, and the next gesture is still acted on")
    func missingCommand() async throws {
        let text = """
            actions:
              - on: swipe
                run: ["/nonexistent/reload-kiosk", "--now"]
              - on: tap
                keys: [KEY_ENTER]

            """
        try await RunnerFixture.with(text) { f in
            let server = try await f.connected()
            server.publish([swipe(1)])
            try await f.log.waitFor("command could not start")
            #expect(f.log.lines.value.contains { $0.contains("command=/nonexistent/reload-kiosk --now") })
            server.publish([tap(2)])
            try await f.performer.waitFor(1)
        }
    }

    @Test("a command that hangs is stopped at its timeout; gestures meanwhile are acted on at once")
    func hangingCommand() async throws {
        let text = """
            commands: {timeout-ms: 1500}
            actions:
              - on: swipe
                shell: "echo started; exec sleep 600"
              - on: tap
                keys: [KEY_ENTER]

            """
        try await RunnerFixture.with(text) { f in
            let server = try await f.connected()
            server.publish([swipe(1)])
            try await f.log.waitFor("info started")
            server.publish([tap(2)])
            try await f.performer.waitFor(1)
            #expect(f.log.count("timed out") == 0, "the tap was acted on while the command still ran")
            #expect(f.commands.running == 1)
            // Logged once the stopped command has ended.
            try await f.log.waitFor("command timed out after 1500 ms")
        }
    }

    @Test("at most max-running commands at once; one more is not started, and the journal says so")
    func maxRunning() async throws {
        let text = """
            commands: {max-running: 2, timeout-ms: 100000}
            actions:
              - on: swipe
                shell: "echo started; exec sleep 600"

            """
        try await RunnerFixture.with(text) { f in
            let server = try await f.connected()
            server.publish([swipe(1), swipe(2), swipe(3)])
            try await f.log.waitFor("command not started: 2 commands are running (commands.max-running)")
            try await f.log.waitFor("info started", count: 2)
            #expect(f.commands.running == 2)
        }
    }

    @Test("a rule on a recognizer the daemon does not run: a warning naming it and where it is written")
    func unknownRecognizer() async throws {
        let text = """
            actions:
              - on: swipe
                keys: [KEY_A]
              - on: relaod
                keys: [KEY_F5]
              - on: tap
                scroll: {}

            """
        try await RunnerFixture.with(text) { f in
            try await f.startServer()
            f.startRunner()
            try await f.waitForConnection()
            try await f.log.waitFor("warning actions.yaml:4:9: no recognizer 'relaod' runs in the daemon")
            try await f.log.waitFor("warning actions.yaml:6:9: 'tap' is a tap, which is discrete")
            #expect(f.log.count("'swipe'") == 0)
        }
    }

    /// "No action lost or doubled" across a restart of the daemon: every report published while
    /// a connection is up is acted on exactly once; the runner notices the end, connects to the
    /// new daemon and subscribes again before acting on its reports.
    @Test("the daemon goes away and comes back: the runner reconnects; no action lost or doubled")
    func daemonRestart() async throws {
        try await RunnerFixture.with(Self.shortcut) { f in
            let first = try await f.startServer()
            f.startRunner()
            try await f.waitForConnection()
            first.publish((1...5).map { swipe($0) })
            try await f.performer.waitFor(5)
            await first.shutdown()
            try await f.log.waitFor("the daemon closed the connection")
            // While no daemon runs, attempts fail (and are retried with a back-off).
            try await f.log.waitFor("cannot connect")

            let second = try await f.startServer()
            try await f.waitForConnection(2)
            // The new daemon numbers from 1 again: the runner acts on each report once.
            second.publish((1...5).map { swipe($0) })
            try await f.performer.waitFor(10)
            second.publish([swipe(6, direction: .up)])
            // A report no rule acts on, then one that does: nothing was held back or repeated.
            second.publish([swipe(7)])
            try await f.performer.waitFor(11)
            #expect(f.performer.acts.value.count == 11)
            #expect(f.log.count("info connected") == 2)
        }
    }

    @Test("SIGHUP's reload: the new rules act, on the names they subscribe to; a refused reload keeps the old")
    func reload() async throws {
        try await RunnerFixture.with(Self.shortcut) { f in
            let server = try await f.connected()
            try f.runner.reload(
                try parse("actions:\n  - on: tap\n    keys: [KEY_ENTER]\n  - on: missing\n    keys: [KEY_A]\n"))
            try await f.log.waitFor("info actions reloaded")
            try await f.log.waitFor("no recognizer 'missing'")
            // The subscription follows the new names (taps were not subscribed to before).
            try await f.log.waitFor("info subscribed again")
            server.publish([swipe(1), tap(2)])
            try await f.performer.waitFor(1)
            server.publish([tap(3)])
            try await f.performer.waitFor(2)
            #expect(f.performer.acts.value.map(\.what) == ["keys KEY_ENTER", "keys KEY_ENTER"])
            #expect(f.performer.prepared.value.count == 1, "reload prepares the new configuration's devices")

            // Devices that cannot be made: the reload is refused and the running rules stay.
            f.performer.refuse.withLock { $0 = ActionsError("cannot create the virtual keyboard: test") }
            #expect(throws: ActionsError("cannot create the virtual keyboard: test")) {
                try f.runner.reload(try parse("actions:\n  - on: swipe\n    keys: [KEY_A]\n"))
            }
            server.publish([swipe(4), tap(5)])
            try await f.performer.waitFor(3)
            #expect(f.performer.acts.value.map(\.what) == Array(repeating: "keys KEY_ENTER", count: 3))
        }
    }
}
