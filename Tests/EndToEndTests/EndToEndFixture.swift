import Foundation
import GestureClient
import GestureEngine
import GestureProtocol
import Glibc
import Synchronization
import TestSupport
import Testing

/// Whether this machine can make virtual touchscreens: the suite's gate.
enum Uinput {
    static var available: Bool { access("/dev/uinput", W_OK) == 0 }
}

/// The end-to-end suite: the real `gestured` binary (`run`, `simulate`) against a real kernel,
/// with real socket clients. Runs only where /dev/uinput is writable — inside the VM that
/// `scripts/e2e.sh` boots, or natively on a machine with uinput as root; elsewhere `swift test`
/// lists it as skipped with the reason.
///
/// Serialized: the cases share the kernel's input devices and the VM's two CPUs, and a case's
/// timing-sensitive gestures (a tap's duration is kernel time between writes) must not compete
/// with another case's flood. Add cases as nested suites in their own files
/// (`extension EndToEndTests { @Suite("…") struct Passthrough { … } }`): they inherit the gate
/// and the serialization.
@Suite("end to end", .serialized, .enabled(if: Uinput.available, "needs a writable /dev/uinput (scripts/e2e.sh)"))
struct EndToEndTests {}

/// Everything one case needs: a temporary directory with the daemon's socket and configuration,
/// a device-name prefix of its own (the daemon is configured to open only panels with this
/// prefix, so a panel another case left behind cannot disturb it), and the processes it started,
/// which are killed when the fixture goes away.
///
/// ```swift
/// try await EndToEndFixture.run { fixture in
///     let daemon = try await fixture.startDaemon()
///     let panel = try await fixture.panel(steps: ["tap at=0.3,0.6"])   // held, waiting
///     let client = try await fixture.subscribe(Subscription(kinds: [.tap]))
///     let device = try await client.device(named: panel.name)   // the daemon opened it
///     panel.play()                                               // SIGUSR1: the script runs
///     let tap = try await client.gesture("a tap") { $0.name == "tap" }
///     try await panel.unplug()
///     try await fixture.finish(daemon)                           // SIGTERM: exit 0
/// }
/// ```
final class EndToEndFixture: Sendable {
    /// Generous: code in the VM runs ~10× slower than on the host, and waits are event-driven,
    /// so a long deadline only costs time when something is broken.
    static let patience = Duration.seconds(60)

    let gestured: String
    let directory: String
    var socket: String { directory + "/g.sock" }
    var configPath: String { directory + "/gestured.yaml" }
    /// Starts every panel name of this case.
    let prefix: String

    private let processes = Mutex<[(label: String, process: ChildProcess)]>([])
    private let subscribers = Mutex<[Subscriber]>([])
    private static let cases = Atomic<Int>(0)

    init() throws {
        gestured = try Self.gesturedPath()
        var template = Array("/tmp/gestured-e2e-XXXXXX".utf8CString)
        guard let path = mkdtemp(&template) else { throw FixtureError("mkdtemp failed") }
        directory = String(cString: path)
        let number = Self.cases.wrappingAdd(1, ordering: .relaxed).newValue
        prefix = "e2e\(getpid())-\(number)"
    }

    /// Runs a case with a fresh fixture. When it throws (a wait timed out, a process failed),
    /// the output of every process it started is recorded with the issue before the error goes
    /// on; the processes are killed when the fixture goes away.
    @discardableResult
    static func run<T>(_ body: (EndToEndFixture) async throws -> T) async throws -> T {
        let fixture = try EndToEndFixture()
        do {
            return try await body(fixture)
        } catch {
            Issue.record("\(error)\n\(fixture.transcripts())")
            throw error
        }
    }

    /// The last lines of every process this case started.
    func transcripts() -> String {
        processes.withLock { $0 }.map { $0.process.transcript($0.label) }.joined(separator: "\n")
    }

    deinit {
        for subscriber in subscribers.withLock({ $0 }) { subscriber.cancel() }
        for (_, process) in processes.withLock({ $0 }) { process.send(SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The `gestured` executable: `$GESTURED_BIN`, else next to the test bundle (where
    /// `swift build --build-tests` puts it, and where the VM harness copies both).
    static func gesturedPath() throws -> String {
        if let path = ProcessInfo.processInfo.environment["GESTURED_BIN"] { return path }
        let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("gestured").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw FixtureError("gestured is not built at \(path); run `swift build --build-tests` first")
        }
        return path
    }

    // MARK: - The daemon

    /// Writes the configuration file: `body` (YAML: recognizers, regions…) plus a `devices`
    /// section that opens only this case's panels.
    func writeConfiguration(_ body: String = "") throws {
        let devices = """
            devices:
              - match:
                  name: "\(prefix)*"
              - enabled: false

            """
        try (devices + body).write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Starts `gestured run` on this case's socket and configuration (written with
    /// ``writeConfiguration(_:)`` first unless it exists) and waits for it to be ready.
    /// `command` turns the `gestured run …` arguments into the command line to start (to run it
    /// through `su`, for instance); `environment` is added to the test's.
    @discardableResult
    func startDaemon(
        command: (([String]) -> [String])? = nil, environment: [String: String] = [:]
    ) async throws -> ChildProcess {
        if !FileManager.default.fileExists(atPath: configPath) { try writeConfiguration() }
        let run = [gestured, "run", "--config", configPath, "--socket", socket]
        let daemon = try ChildProcess(command.map { $0(run) } ?? run, environment: environment)
        track(daemon, as: "gestured run")
        try await Self.waitForReady(daemon)
        return daemon
    }

    /// Waits for the daemon's `ready` log line (it is logged after READY=1 would be sent:
    /// socket bound, devices open); fails early with its output when it exits instead.
    static func waitForReady(_ daemon: ChildProcess) async throws {
        try await daemon.output.wait(for: "the daemon to be ready", within: patience) { o in
            o.status != nil || o.lines.contains { $0.contains(" ready ") || $0.hasSuffix(" ready") }
        }
        if let status = daemon.output.value.status {
            throw FixtureError("the daemon exited with status \(status): \(daemon.lines.suffix(10))")
        }
    }

    /// Stops the daemon with SIGTERM, checks that it exits 0, and closes the subscribers.
    func finish(_ daemon: ChildProcess) async throws {
        daemon.send(SIGTERM)
        let status = try await daemon.waitForExit(within: Self.patience)
        #expect(status == 0, "the daemon's exit status; its last lines: \(daemon.lines.suffix(10))")
        for subscriber in subscribers.withLock({ $0 }) { await subscriber.close() }
    }

    /// Kills `process` when the fixture goes away, and shows its output when the case throws.
    func track(_ process: ChildProcess, as label: String) {
        processes.withLock { $0.append((label, process)) }
    }

    // MARK: - Panels

    /// A virtual touchscreen made by `gestured simulate --start-on-signal`, named
    /// `<prefix> <label>`, created and waiting for ``SimulatedPanel/play()``. With `hold` (the
    /// default) it stays plugged after the script until ``SimulatedPanel/unplug()``: a tap is
    /// reported only once a double tap is out of the question (max-gap after the lift), and a
    /// device removed before that cancels it (R9).
    func panel(
        _ label: String = "panel", profile: String = "kiosk-10", steps: [String], options: [String] = [],
        hold: Bool = true
    ) async throws -> SimulatedPanel {
        let name = "\(prefix) \(label)"
        let process = try ChildProcess(
            [gestured, "simulate", "--profile", profile, "--name", name, "--start-on-signal"]
                + (hold ? ["--hold"] : []) + options + steps)
        track(process, as: "gestured simulate '\(name)'")
        return try await SimulatedPanel(process: process, name: name)
    }

    // MARK: - Clients

    /// A client connected to the daemon with `subscription` in place (nil: no subscription,
    /// only `device` messages).
    func subscribe(_ subscription: Subscription? = Subscription()) async throws -> Subscriber {
        let subscriber = try await Subscriber.connect(to: socket, subscription: subscription)
        subscribers.withLock { $0.append(subscriber) }
        return subscriber
    }
}

/// A `gestured simulate` process: its device exists and waits for SIGUSR1 to play.
struct SimulatedPanel: Sendable {
    let process: ChildProcess
    /// The kernel device name.
    let name: String
    /// `/dev/input/eventN`.
    let devnode: String

    init(process: ChildProcess, name: String) async throws {
        self.process = process
        self.name = name
        try await process.output.wait(for: "simulate to create '\(name)'", within: EndToEndFixture.patience) { o in
            o.status != nil || o.lines.contains("waiting for SIGUSR1")
        }
        guard let line = process.lines.first(where: { $0.hasPrefix("device ") }), process.output.value.status == nil
        else {
            throw FixtureError("simulate did not create its device: \(process.lines)")
        }
        devnode = String(line.split(separator: " ")[1])
    }

    /// Starts the script; returns the monotonic time just before (every event it writes is
    /// stamped later than this).
    @discardableResult
    func play() -> Int64 {
        let now = monotonicMicroseconds()
        process.send(SIGUSR1)
        return now
    }

    /// Waits until a held panel has played its script.
    func waitUntilPlayed() async throws {
        try await waitFor(line: "holding")
    }

    /// Waits until the script has been played and the device removed; checks the exit status.
    func waitUntilDone() async throws {
        let status = try await process.waitForExit(within: EndToEndFixture.patience)
        #expect(status == 0, "simulate's exit status; its output: \(process.lines)")
    }

    /// Waits until simulate has printed a line starting with `prefix` `count` times (`holding…`,
    /// `unplugged`, `paused; waiting for SIGUSR1` at a `pause` step).
    func waitFor(line prefix: String, count: Int = 1) async throws {
        try await process.output.wait(for: "simulate to print '\(prefix)'", within: EndToEndFixture.patience) { o in
            o.lines.count { $0.hasPrefix(prefix) } >= count || o.status != nil
        }
        guard process.lines.count(where: { $0.hasPrefix(prefix) }) >= count else {
            throw FixtureError("simulate ended without printing '\(prefix)' \(count) times: \(process.lines)")
        }
    }

    /// Waits until the script reached its `number`th `pause` step.
    func waitForPause(_ number: Int = 1) async throws {
        try await waitFor(line: "paused", count: number)
    }

    /// Unplugs the device (SIGTERM: simulate removes it and exits 0).
    func unplug() async throws {
        process.send(SIGTERM)
        try await waitUntilDone()
    }
}

/// A socket client (GestureClient) that records everything it receives with the monotonic time
/// of reception, and lets a test wait for what it expects with a deadline.
final class Subscriber: Sendable {
    struct Received: Sendable {
        var message: ServerMessage
        /// CLOCK_MONOTONIC when the client had decoded it, µs (the clock of `time_us`).
        var at: Int64
    }

    struct State: Sendable {
        var hello: HelloMessage?
        var subscribed = false
        var received: [Received] = []
        /// Why the connection ended, once it has.
        var ended: String?
    }

    let state: Observed<State>
    private let task: Task<Void, Never>

    private init(state: Observed<State>, task: Task<Void, Never>) {
        self.state = state
        self.task = task
    }

    static func connect(to socket: String, subscription: Subscription?) async throws -> Subscriber {
        let state = Observed(State())
        let task = Task {
            do {
                try await GestureClient.connect(to: socket) { client in
                    state.update { $0.hello = client.hello }
                    if let subscription { try await client.subscribe(subscription) }
                    state.update { $0.subscribed = true }
                    for try await message in client.messages {
                        let at = monotonicMicroseconds()
                        state.update { $0.received.append(Received(message: message, at: at)) }
                    }
                }
                state.update { $0.ended = "closed by the server" }
            } catch {
                state.update { $0.ended = "\(error)" }
            }
        }
        let subscriber = Subscriber(state: state, task: task)
        try await state.wait(for: "the client to connect and subscribe", within: EndToEndFixture.patience) {
            $0.subscribed || $0.ended != nil
        }
        if let ended = state.value.ended, !state.value.subscribed {
            throw FixtureError("the client could not connect: \(ended)")
        }
        return subscriber
    }

    var hello: HelloMessage { state.value.hello! }
    var received: [Received] { state.value.received }
    var messages: [ServerMessage] { received.map(\.message) }
    var gestures: [GestureMessage] {
        messages.compactMap { if case .gesture(let g) = $0 { g } else { nil } }
    }
    var touches: [TouchMessage] {
        messages.compactMap { if case .touch(let t) = $0 { t } else { nil } }
    }
    var deviceEvents: [DeviceMessage] {
        messages.compactMap { if case .device(let d) = $0 { d } else { nil } }
    }

    /// Waits until `condition` holds for everything received so far (or the connection ends,
    /// which fails the wait). The condition runs again on every message: for clients that get
    /// thousands (raw touches), ``waitFor(_:count:within:where:)`` looks at each message once.
    func wait(
        for what: String, within: Duration = EndToEndFixture.patience,
        until condition: @escaping @Sendable ([Received]) -> Bool
    ) async throws {
        try await state.wait(for: what, within: within) { $0.ended != nil || condition($0.received) }
        if !condition(state.value.received) {
            throw FixtureError("the connection ended (\(state.value.ended ?? "?")) before \(what)")
        }
    }

    /// Waits until `count` of the messages received satisfy `match`; those messages. Each
    /// message is looked at once, however many arrive, and the connection ending first fails
    /// the wait.
    @discardableResult
    func waitFor(
        _ what: String, count: Int = 1, within: Duration = EndToEndFixture.patience,
        where match: @escaping @Sendable (ServerMessage) -> Bool
    ) async throws -> [Received] {
        let scan = Scan<[Received]>([])
        let found: @Sendable (State) -> [Received] = { state in
            scan.advance(state.received) { matches, r in if match(r.message) { matches.append(r) } }
        }
        try await state.wait(for: what, within: within) { $0.ended != nil || found($0).count >= count }
        let matches = found(state.value)
        if matches.count < count {
            throw FixtureError("the connection ended (\(state.value.ended ?? "?")) before \(what)")
        }
        return Array(matches.prefix(count))
    }

    /// Waits for the daemon to have opened the panel named `name` (listed in `hello` or announced
    /// `added` since, and not removed after); its info.
    @discardableResult
    func device(named name: String, within: Duration = EndToEndFixture.patience) async throws -> DeviceInfo {
        let scan = Scan<DeviceInfo?>(hello.devices.last { $0.name == name })
        let current: @Sendable (State) -> DeviceInfo? = { state in
            scan.advance(state.received) { device, r in
                guard case .device(let d) = r.message, d.device.name == name else { return }
                device = d.event == .added ? d.device : nil
            }
        }
        try await state.wait(for: "the daemon to open '\(name)'", within: within) {
            $0.ended != nil || current($0) != nil
        }
        guard let device = current(state.value) else {
            throw FixtureError("the connection ended (\(state.value.ended ?? "?")) before '\(name)' was opened")
        }
        return device
    }

    /// Waits for a `device` `removed` message for `label`.
    func removal(of label: String) async throws {
        try await waitFor("'\(label)' to be removed") {
            if case .device(let d) = $0 { d.event == .removed && d.device.label == label } else { false }
        }
    }

    /// Waits for a gesture that satisfies `match`; the first such.
    @discardableResult
    func gesture(
        _ what: String, within: Duration = EndToEndFixture.patience,
        where match: @escaping @Sendable (GestureMessage) -> Bool
    ) async throws -> GestureMessage {
        let found = try await waitFor(what, within: within) {
            if case .gesture(let g) = $0 { match(g) } else { false }
        }
        guard case .gesture(let g) = found[0].message else { preconditionFailure("matched a gesture") }
        return g
    }

    /// Closes the connection and waits until it is closed.
    func close() async {
        task.cancel()
        await task.value
    }

    /// Closes the connection without waiting (fixture teardown).
    func cancel() { task.cancel() }
}

/// A fold over a growing list of received messages that looks at each message once: waits
/// re-evaluate their condition on every message, which must not cost the whole list each time.
private final class Scan<Value: Sendable>: Sendable {
    private let progress: Mutex<(next: Int, value: Value)>

    init(_ initial: Value) { progress = Mutex((0, initial)) }

    /// Folds the messages after those already seen into the value; the value.
    func advance(_ received: [Subscriber.Received], _ fold: (inout Value, Subscriber.Received) -> Void) -> Value {
        progress.withLock { p in
            while p.next < received.count {
                fold(&p.value, received[p.next])
                p.next += 1
            }
            return p.value
        }
    }
}

/// CLOCK_MONOTONIC in microseconds: the clock of the kernel's event times and of `time_us`.
func monotonicMicroseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}

extension ChildProcess {
    /// Its last lines of output under `label`, for a report.
    func transcript(_ label: String, lines count: Int = 40) -> String {
        "--- \(label) (status \(output.value.status.map { "\($0)" } ?? "running")):\n"
            + lines.suffix(count).joined(separator: "\n")
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
