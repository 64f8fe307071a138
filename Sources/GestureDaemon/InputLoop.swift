import CLinuxSupport
import GestureEngine
import GestureMetrics
import GestureProtocol
import GestureServer
import Glibc
import Logging
import TouchInput

/// The input thread: one epoll loop that owns the frame source (live touchscreens, or a
/// recording: ``FrameSource``, which owns what it reads and the engine's clock, and says when it
/// needs the loop next), the frame path (``FramePath``: the engine, the passthrough mirrors, the
/// publisher), and
/// serves the socket: the server's own epoll fd is in the set, and this thread is the server
/// thread (``GestureServer/startOnThisThread()``). Each iteration reads the clock once and hands
/// the server one batch of publications — gestures, touches, devices and the recognizer list
/// alike — which it writes to the clients there and then (one wake-up per frame); client
/// requests come back through the ``RequestQueue``'s eventfd, signals through a self-pipe.
///
/// Confined to the thread that creates it and calls ``run()`` (the daemon's main thread). This
/// file is the loop; its other parts, by role: the requests it takes (InputLoop+Requests.swift),
/// the definition changes (+Definitions), recordings (+Recordings), signals and reloads
/// (+Reload).
final class InputLoop {
    private let epoll: Int32
    let signals: Int32
    let requests: RequestQueue
    let server: GestureServer
    let notifier: SystemdNotifier
    let configPath: String?
    var logger: Logger
    var configuration: DaemonConfiguration
    /// The drop-ins the running configuration was merged from, for `status`.
    var dropIns: [String]
    let path: FramePath
    private var ready = [gestured_epoll_event](repeating: gestured_epoll_event(), count: 32)
    /// Where frames come from; opened by ``start()``.
    let source: any FrameSource
    private var nextWatchdog: Int64?
    /// The input thread's greatest lag since the last watchdog ping: how long a request waited
    /// in the queue, or a live frame after its kernel time, before being handled.
    var lag: Int64 = 0
    var stopping = false
    /// How many iterations woken by touchscreens alone may go without reading the clock.
    private static let iterationsPerClockRead = 9
    /// Definition changes waiting for the compiler, and the pings behind their own connection's.
    var definitionQueue = DefinitionQueue<DefinitionChange, RequestReply, ClientID>()
    /// The clock as the loop read it for the requests it is performing (CLOCK_MONOTONIC µs).
    var requestTime: Int64 = 0
    let compiler: DefinitionCompiler
    /// What it counts for the metrics beside the frame path's counters.
    var counters: LoopCounters
    let metrics: MetricsSnapshotBuilder

    /// A loop whose frames come from `replay`, or from the touchscreens when it is nil.
    init(
        configuration: DaemonConfiguration, dropIns: [String], configPath: String?, replay: ReplayOptions?,
        server: GestureServer, requests: RequestQueue, notifier: SystemdNotifier, logger: Logger
    ) throws(DaemonError) {
        self.configuration = configuration
        self.dropIns = dropIns
        self.configPath = configPath
        self.server = server
        self.requests = requests
        compiler = DefinitionCompiler(results: requests)
        let started = gestured_monotonic_us()
        counters = LoopCounters(configurationLoaded: started)
        metrics = MetricsSnapshotBuilder(started: started)
        self.notifier = notifier
        self.logger = logger
        let engine: GestureEngine
        do {
            engine = try GestureEngine(configuration: configuration.engineConfiguration)
        } catch {
            throw DaemonError("the configuration does not validate: \(error)")
        }
        path = FramePath(
            engine: engine, interest: Interest(), server: server, logger: logger)
        let epoll = gestured_epoll_create()
        guard epoll >= 0 else { throw DaemonError("epoll_create1: \(Self.errorText())") }
        do {
            source = try Self.source(replay, configuration: configuration, epoll: epoll, notifier: notifier, logger: logger)
        } catch {
            close(epoll)
            throw error
        }
        self.epoll = epoll
        signals = gestured_signal_pipe_install()
        guard signals >= 0 else { throw DaemonError("cannot install the signal handlers: \(Self.errorText())") }
        try watch(signals, token: LoopToken.signals)
        try watch(requests.fileDescriptor, token: LoopToken.requests)
        try watch(server.descriptor, token: LoopToken.server)
    }

    deinit {
        close(signals)
        close(epoll)
    }

    /// The recording, or touchscreens found and followed through udev or their capabilities.
    private static func source(
        _ replay: ReplayOptions?, configuration: DaemonConfiguration, epoll: Int32, notifier: SystemdNotifier,
        logger: Logger
    ) throws(DaemonError) -> any FrameSource {
        guard let replay else {
            return try LiveFrameSource(
                rules: configuration.deviceRules, epoll: epoll, notifier: notifier, logger: logger)
        }
        do {
            return RecordingFrameSource(
                try ReplayDriver(
                    recording: replay.recording, label: replay.label,
                    settings: configuration.deviceRules.settings(for: replay.identity), speed: replay.speed,
                    loops: replay.loops, id: DeviceID(1)),
                firstID: DeviceID(1), file: replay.file)
        } catch {
            throw DaemonError("\(replay.label): \(error)")
        }
    }

    // MARK: - Start

    /// Opens the frame source: the touchscreens present, or the recording's device. Returns a
    /// status line for READY.
    func start() -> String {
        defer { flush() }
        path.framesCarryMonotonicTime = !(source is RecordingFrameSource)
        return source.start(path)
    }

    // MARK: - The loop

    /// Runs until SIGTERM or SIGINT; returns after active gestures were cancelled and published.
    func run() {
        nextWatchdog = notifier.watchdogInterval.map { gestured_monotonic_us() + $0 }
        var wallNow = gestured_monotonic_us()
        var iterationsSinceClock = 0
        while !stopping {
            let count = gestured_epoll_wait(epoll, &ready, Int32(ready.count), timeoutMilliseconds(wallNow: wallNow))
            if count < 0 {
                if errno == EINTR { continue }
                logger.critical("epoll_wait failed: \(Self.errorText()); stopping")
                break
            }
            // At most one clock read per iteration: what woke the loop, the timers due and the
            // next timeout are all measured from it. When only touchscreens woke a live loop,
            // their newest frame's kernel time (CLOCK_MONOTONIC, stamped at the SYN_REPORT) is
            // the present, a little behind the clock by the read's latency, and the clock is read
            // every tenth such iteration only — as libinput's dispatch does — because a clock
            // read is a system call on some machines (the hpet clocksource of a VM).
            let woken = 0..<Int(count)
            var onlyDevices = count > 0
            for i in woken where ready[i].token < LoopToken.deviceBase { onlyDevices = false }
            if onlyDevices, iterationsSinceClock < Self.iterationsPerClockRead {
                iterationsSinceClock += 1
                path.arrival = wallNow
                var newest = wallNow
                for i in woken {
                    if let time = source.handle(ready[i].token, path, wallNow: wallNow) { newest = max(newest, time) }
                }
                wallNow = newest
            } else {
                iterationsSinceClock = 0
                wallNow = gestured_monotonic_us()
                path.arrival = wallNow
                // Devices and signals first, client requests last: a frame never waits for a define.
                for i in woken where ready[i].token != LoopToken.requests { handle(ready[i].token, wallNow: wallNow) }
                for i in woken where ready[i].token == LoopToken.requests { handle(ready[i].token, wallNow: wallNow) }
            }
            tick(wallNow: wallNow)
            flush()
        }
        path.stopRecordings(where: { _ in true }, reason: .daemonStopping)
        source.shutDown(path, wallNow: gestured_monotonic_us())
        flush()
        compiler.shutDown()
    }

    private func handle(_ token: UInt64, wallNow: Int64) {
        switch token {
        case LoopToken.signals: takeSignals()
        case LoopToken.requests: takeRequests(wallNow: wallNow)
        case LoopToken.server: server.service()
        default: _ = source.handle(token, path, wallNow: wallNow)
        }
    }

    /// Timers, the recording's frames and the watchdog, whatever woke the loop.
    private func tick(wallNow: Int64) {
        source.tick(path, wallNow: wallNow)
        if let due = path.recordings.nextDeadline, wallNow >= due {
            let ended = path.stopRecordings(where: { ($0.deadline ?? .max) <= wallNow }, reason: .duration)
            stopCapturing(ended)
        }
        if let due = nextWatchdog, wallNow >= due, let interval = notifier.watchdogInterval {
            // The watchdog covers the input thread's work, not only its loop: a thread that
            // lags its inputs by a whole interval (a backlog of frames or requests) stays
            // silent, and systemd restarts it after WatchdogSec.
            lag = max(lag, source.takeLag())
            if lag < interval {
                notifier.watchdog()
            } else {
                logger.warning("the input thread is \(lag / 1000) ms behind its input; not pinging the watchdog")
            }
            lag = 0
            nextWatchdog = wallNow + interval
        }
    }

    /// Until the earliest of the source's next wake-up and the watchdog; -1 (sleep until
    /// something happens) when neither is pending.
    private func timeoutMilliseconds(wallNow: Int64) -> Int32 {
        var wake = nextWatchdog
        if let t = source.nextWakeUp(path, wallNow: wallNow) { wake = min(wake ?? t, t) }
        if let t = path.recordings.nextDeadline { wake = min(wake ?? t, t) }
        guard let wake else { return -1 }
        let remaining = wake - wallNow
        if remaining <= 0 { return 0 }
        // Round up: waking a little late fires the deadline; waking early spins once more.
        return Int32(clamping: (remaining + 999) / 1000)
    }

    /// The engine's present: the source's clock.
    func engineNow(wallNow: Int64) -> Timestamp {
        source.engineNow(wallNow: wallNow)
    }

    private func flush() {
        guard let since = path.flush({ server.publish(draining: &$0) }) else { return }
        counters.published(since: since, clock: gestured_monotonic_us)
    }

    // MARK: - Helpers

    private func watch(_ fd: Int32, token: UInt64) throws(DaemonError) {
        guard gestured_epoll_add(epoll, fd, GESTURED_EPOLLIN, token) == 0 else {
            throw DaemonError("epoll_ctl(ADD, fd \(fd)): \(Self.errorText())")
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}

/// What woke the input loop: the epoll tokens of its file descriptors.
enum LoopToken {
    static let signals: UInt64 = 1
    static let requests: UInt64 = 2
    static let discovery: UInt64 = 3
    /// The server's epoll set: its listener, connections, close timers and mailbox.
    static let server: UInt64 = 4
    /// Device tokens are this plus the device id.
    static let deviceBase: UInt64 = 1 << 32
}

/// A recording to play in place of devices (`gestured run --replay`).
public struct ReplayOptions: Sendable {
    public var recording: Recording
    /// Names the replay device (`device` in messages), usually the file's name.
    public var label: String
    /// Times real time; nil plays as fast as possible.
    public var speed: Double?
    public var loops: Bool
    /// The recording's file, when it came from one: who may read it may record the replay device
    /// (`gestured record`).
    public var file: String?

    public init(recording: Recording, label: String, speed: Double?, loops: Bool, file: String? = nil) {
        self.recording = recording
        self.label = label
        self.speed = speed
        self.loops = loops
        self.file = file
    }

    /// The recorded device's identity, for the configuration's device entries.
    var identity: DeviceIdentity {
        DeviceIdentity(name: recording.description.name, id: recording.description.id)
    }
}
