import CLinuxSupport
import GestureEngine
import GestureProtocol
import GestureServer
import Glibc
import Logging
import TouchInput

/// The input thread: one epoll loop that owns the frame source (live devices and the udev
/// monitor, or a recording), the engine and its timers (the epoll timeout is the engine's next
/// deadline, so an idle daemon never wakes up), and serves the socket: the server's own epoll fd
/// is in the set, and this thread is the server thread (``GestureServer/startOnThisThread()``).
/// Each iteration reads the clock once and hands the server one batch of publications —
/// gestures, touches, devices and the recognizer list alike — which it writes to the clients
/// there and then (one wake-up per frame); client requests come back through the
/// ``RequestQueue``'s eventfd, signals through a self-pipe.
///
/// Confined to the thread that creates it and calls ``run()`` (the daemon's main thread).
final class InputLoop {
    /// Where frames come from.
    enum Source {
        /// Touchscreens found (and followed) through udev or their capabilities.
        case devices
        /// A recording in place of devices.
        case replay(ReplayOptions)
    }

    private enum Token {
        static let signals: UInt64 = 1
        static let requests: UInt64 = 2
        static let discovery: UInt64 = 3
        /// The server's epoll set: its listener, connections, close timers and mailbox.
        static let server: UInt64 = 4
        /// Device tokens are this plus the device id.
        static let deviceBase: UInt64 = 1 << 32
    }

    private let epoll: Int32
    private let signals: Int32
    private let requests: RequestQueue
    private let server: GestureServer
    private let notifier: SystemdNotifier
    private let configPath: String?
    private var logger: Logger
    private var configuration: DaemonConfiguration
    private var engine: GestureEngine
    private var publisher = Publisher()
    /// What the connections want (the server's ``Interest``), as of generation
    /// ``interestGeneration``.
    private var interest = Interest()
    private var interestGeneration: UInt64 = 0
    private var events: [EngineEvent] = []
    private var frames = TouchFrameBuffer()
    private var ready = [gestured_epoll_event](repeating: gestured_epoll_event(), count: 32)

    /// Where frames come from; it also says which clock the engine runs on.
    private var source = FrameSource.live(discovery: nil)
    /// The open touchscreens, in the order they were opened (ids ascending). A list, not a
    /// dictionary: found by id on every frame, where hashing costs more than a scan of a few.
    private var devices: [TouchDevice] = []
    /// Mirrors of the panels with `passthrough` (docs/PASSTHROUGH.md).
    private var passthrough = PassthroughRouter()
    private var nextDeviceID: UInt32 = 1
    /// What `hello` lists, as last handed to the server.
    private var publishedRecognizers: [RecognizerSummary]?
    private var nextWatchdog: Int64?
    /// The input thread's greatest lag since the last watchdog ping: how long a request waited
    /// in the queue, or a live frame after its kernel time, before being handled.
    private var lag: Int64 = 0
    private var stopping = false
    /// The newest kernel time of the frames read in this iteration (``run()``).
    private var newestFrameTime: Int64 = 0
    /// How many iterations woken by touchscreens alone may go without reading the clock.
    private static let iterationsPerClockRead = 9
    /// Definition changes waiting for the compiler, and the pings behind them.
    private var definitionQueue = DefinitionQueue<DefinitionChange, PingRequest>()
    private let compiler: DefinitionCompiler

    init(
        configuration: DaemonConfiguration, configPath: String?, server: GestureServer, requests: RequestQueue,
        notifier: SystemdNotifier, logger: Logger
    ) throws(DaemonError) {
        self.configuration = configuration
        self.configPath = configPath
        self.server = server
        self.requests = requests
        compiler = DefinitionCompiler(results: requests)
        self.notifier = notifier
        self.logger = logger
        do {
            engine = try GestureEngine(configuration: configuration.engineConfiguration)
        } catch {
            throw DaemonError("the configuration does not validate: \(error)")
        }
        epoll = gestured_epoll_create()
        guard epoll >= 0 else { throw DaemonError("epoll_create1: \(Self.errorText())") }
        signals = gestured_signal_pipe_install()
        guard signals >= 0 else { throw DaemonError("cannot install the signal handlers: \(Self.errorText())") }
        try watch(signals, token: Token.signals)
        try watch(requests.fileDescriptor, token: Token.requests)
        try watch(server.descriptor, token: Token.server)
        reportTouchMovesIfWanted()
        publishRecognizers()
    }

    deinit {
        close(signals)
        close(epoll)
    }

    // MARK: - Start

    /// Opens the frame source: discovery and the touchscreens present, or the recording.
    /// Returns a status line for READY.
    func start(_ requested: Source) throws(DaemonError) -> String {
        switch requested {
        case .devices:
            let finder: DeviceDiscovery
            do {
                finder = try DeviceDiscovery(rules: configuration.deviceRules, logger: logger)
            } catch {
                throw DaemonError("cannot watch for input devices: \(error)")
            }
            source = .live(discovery: finder)
            try watch(finder.fileDescriptor, token: Token.discovery)
            do {
                for device in try finder.scan() { open(device) }
            } catch {
                logger.error("cannot list input devices: \(error)")
            }
            flush()
            if devices.isEmpty {
                logger.notice("no touchscreen present yet; waiting for one to be plugged in")
                return "waiting for a touchscreen"
            }
            return "\(devices.count) touchscreen\(devices.count == 1 ? "" : "s")"
        case .replay(let options):
            let id = takeDeviceID()
            let replay: Replay
            do {
                replay = Replay(
                    try ReplayDriver(
                        recording: options.recording, label: options.label,
                        settings: configuration.deviceRules.settings(for: options.identity), speed: options.speed,
                        loops: options.loops, id: id))
            } catch {
                throw DaemonError("\(options.label): \(error)")
            }
            source = .replay(replay)
            addReplayDevice(replay)
            flush()
            return "replaying \(options.label)"
        }
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
            for i in woken where ready[i].token < Token.deviceBase { onlyDevices = false }
            if case .live = source, onlyDevices, iterationsSinceClock < Self.iterationsPerClockRead {
                iterationsSinceClock += 1
                newestFrameTime = wallNow
                for i in woken { handle(ready[i].token, wallNow: wallNow) }
                wallNow = newestFrameTime
            } else {
                iterationsSinceClock = 0
                wallNow = gestured_monotonic_us()
                // Devices and signals first, client requests last: a frame never waits for a define.
                for i in woken where ready[i].token != Token.requests { handle(ready[i].token, wallNow: wallNow) }
                for i in woken where ready[i].token == Token.requests { handle(ready[i].token, wallNow: wallNow) }
            }
            tick(wallNow: wallNow)
            flush()
        }
        shutDownDevices()
        flush()
        compiler.shutDown()
    }

    private func handle(_ token: UInt64, wallNow: Int64) {
        switch token {
        case Token.signals: takeSignals()
        case Token.requests: takeRequests(wallNow: wallNow)
        case Token.discovery: takeHotplug(wallNow: wallNow)
        case Token.server: server.service()
        default:
            let id = DeviceID(UInt32(truncatingIfNeeded: token - Token.deviceBase))
            if let device = devices.first(where: { $0.id == id }) { read(device, wallNow: wallNow) }
        }
    }

    /// Timers, replay pacing and the watchdog, whatever woke the loop.
    private func tick(wallNow: Int64) {
        switch source {
        case .live:
            engine.advance(to: Timestamp(microseconds: wallNow), into: &events)
            publishEvents()
        case .replay(let replay):
            step(replay, wallNow: wallNow)
        }
        if let due = nextWatchdog, wallNow >= due, let interval = notifier.watchdogInterval {
            // The watchdog covers the input thread's work, not only its loop: a thread that
            // lags its inputs by a whole interval (a backlog of frames or requests) stays
            // silent, and systemd restarts it after WatchdogSec.
            if lag < interval {
                notifier.watchdog()
            } else {
                logger.warning("the input thread is \(lag / 1000) ms behind its input; not pinging the watchdog")
            }
            lag = 0
            nextWatchdog = wallNow + interval
        }
    }

    /// Until the earliest of: the engine's next deadline, the next replay frame, the watchdog.
    /// -1 (sleep until something happens) when none is pending.
    private func timeoutMilliseconds(wallNow: Int64) -> Int32 {
        var wake: Int64?
        func consider(_ t: Int64?) { if let t { wake = min(wake ?? t, t) } }
        consider(nextWatchdog)
        switch source {
        case .live:
            consider(engine.nextDeadline?.microseconds)
        case .replay(let replay):
            // A replay that is over leaves no clock running: the loop sleeps until a client or a
            // signal wakes it.
            if replay.driver.isOver {
            } else if let paused = replay.driver.pausedUntil {
                consider(paused)
            } else if replay.driver.speed == nil {
                return 0
            } else {
                consider(replay.driver.nextFrameWallTime() ?? (replay.driver.isPassFinished ? nil : wallNow))
                consider(engine.nextDeadline.flatMap(replay.driver.wallTime(ofEngineTime:)))
                if replay.driver.isPassFinished && engine.nextDeadline == nil { consider(wallNow) }
            }
        }
        guard let wake else { return -1 }
        let remaining = wake - wallNow
        if remaining <= 0 { return 0 }
        // Round up: waking a little late fires the deadline; waking early spins once more.
        return Int32(clamping: (remaining + 999) / 1000)
    }

    /// The engine's present: the monotonic clock for live devices, the recording's otherwise.
    private func engineNow(wallNow: Int64) -> Timestamp {
        switch source {
        case .live: Timestamp(microseconds: wallNow)
        case .replay(let replay): replay.clock
        }
    }

    // MARK: - Devices

    private func open(_ discovered: DiscoveredDevice) {
        if devices.contains(where: { $0.identity.devnode == discovered.devnode }) { return }
        switch discovered.verdict {
        case .skipped(let reason):
            logger.debug(
                "not a touchscreen, skipped",
                metadata: [
                    "device": "\(discovered.label)", "name": "\(discovered.identity.name)", "reason": "\(reason)",
                ])
            return
        case .touchscreen:
            break
        }
        let device: TouchDevice
        do {
            device = try discovered.open(id: takeDeviceID(), rules: configuration.deviceRules, logger: logger)
        } catch {
            logger.warning(
                "cannot use touchscreen",
                metadata: [
                    "device": "\(discovered.label)", "name": "\(discovered.identity.name)", "reason": "\(error)",
                ])
            return
        }
        do {
            try watch(device.fileDescriptor, token: Token.deviceBase + UInt64(device.id.rawValue))
        } catch {
            logger.error("\(error)")
            device.close()
            return
        }
        devices.append(device)
        engine.addDevice(device.descriptor)
        if device.settings.passthrough {
            passthrough.attach(device, logger: logger)
            reportTouchMovesIfWanted()
        }
        publisher.deviceAdded(
            device.descriptor, model: device.model, vendor: device.identity.id.vendor,
            product: device.identity.id.product)
        notifier.status("\(devices.count) touchscreen\(devices.count == 1 ? "" : "s")")
    }

    private func read(_ device: TouchDevice, wallNow: Int64) {
        let outcome = device.read(into: &frames)
        if let first = frames.first { lag = max(lag, wallNow - first.time.microseconds) }
        if let last = frames.last { newestFrameTime = max(newestFrameTime, last.time.microseconds) }
        processFrames()
        switch outcome {
        case .drained:
            break
        case .resynced(let time):
            engine.resync(device.id, at: time, into: &events)
            publishEvents()
        case .removed(let time, _):
            remove(device, at: time)
        }
    }

    /// Takes a device out: its touches are cancelled (R9) before clients hear it is gone.
    private func remove(_ device: TouchDevice, at time: Timestamp) {
        _ = gestured_epoll_remove(epoll, device.fileDescriptor)
        device.close(at: time, into: &frames)
        processFrames()
        engine.removeDevice(device.id, at: time, into: &events)
        publishEvents()
        passthrough.detach(device.id, logger: logger)
        reportTouchMovesIfWanted()
        devices.removeAll { $0 === device }
        publisher.deviceRemoved(
            device.descriptor, model: device.model, vendor: device.identity.id.vendor,
            product: device.identity.id.product)
        notifier.status("\(devices.count) touchscreen\(devices.count == 1 ? "" : "s")")
    }

    private func takeHotplug(wallNow: Int64) {
        guard case .live(let discovery?) = source else { return }
        for event in discovery.receive() {
            switch event {
            case .added(let device):
                open(device)
            case .removed(let devnode):
                guard let device = devices.first(where: { $0.identity.devnode == devnode }) else { continue }
                // Whatever the node still had comes first (its read may already report the removal).
                read(device, wallNow: wallNow)
                if devices.contains(where: { $0 === device }) { remove(device, at: Timestamp(microseconds: wallNow)) }
            }
        }
    }

    private func shutDownDevices() {
        let now = engineNow(wallNow: gestured_monotonic_us())
        for device in devices { remove(device, at: now) }
        if case .replay(let replay) = source { endReplay(replay) }
    }

    private func takeDeviceID() -> DeviceID {
        defer { nextDeviceID += 1 }
        return DeviceID(nextDeviceID)
    }

    // MARK: - Replay

    private func addReplayDevice(_ replay: Replay) {
        let descriptor = replay.driver.descriptor
        engine.addDevice(descriptor)
        publisher.deviceAdded(descriptor, model: replay.driver.source.model, vendor: nil, product: nil)
        logger.info("replaying", metadata: ["recording": "\(replay.driver.label)", "device": "\(descriptor.id)"])
    }

    private func removeReplayDevice(_ descriptor: DeviceDescriptor, model: TouchscreenModel, at time: Timestamp) {
        engine.removeDevice(descriptor.id, at: time, into: &events)
        publishEvents()
        publisher.deviceRemoved(descriptor, model: model, vendor: nil, product: nil)
    }

    /// Plays what is due of the recording, advances the engine to the recording's clock, and ends
    /// or restarts the pass when its frames and timers are through.
    private func step(_ replay: Replay, wallNow: Int64) {
        guard !replay.driver.isOver else { return }
        replay.driver.resume(wallNow: wallNow)
        guard replay.driver.pausedUntil == nil else { return }
        replay.due.removeAll(keepingCapacity: true)
        var failure: ReplayError?
        do {
            try replay.driver.takeDue(wallNow: wallNow, into: &replay.due)
        } catch {
            failure = error
        }
        for frame in replay.due {
            engine.process(frame, into: &events)
            replay.clock = max(replay.clock, frame.time)
        }
        if let failure {
            logger.error("replay stopped: \(replay.driver.label): \(failure)")
            endReplay(replay)
            return
        }
        if let now = replay.driver.engineNow(wallNow: wallNow) {
            replay.clock = max(replay.clock, now)
            engine.advance(to: replay.clock, into: &events)
        }
        publishEvents()
        guard replay.driver.isPassFinished else { return }
        // Unpaced: run the remaining timers out at once; paced, they fire in their own time.
        if replay.driver.speed == nil, let deadline = engine.nextDeadline {
            replay.clock = max(replay.clock, deadline)
            engine.advance(to: replay.clock, into: &events)
            publishEvents()
            return
        }
        guard engine.nextDeadline == nil else { return }
        let finished = replay.driver.descriptor
        let model = replay.driver.source.model
        let eventCount = replay.driver.eventCount
        let again: Bool
        do {
            again = try replay.driver.finishPass(engineTime: replay.clock, wallNow: wallNow, nextID: takeDeviceID())
        } catch {
            logger.error("replay stopped: \(replay.driver.label): \(error)")
            endReplay(replay)
            return
        }
        logger.info("replay pass done", metadata: ["events": "\(eventCount)", "passes": "\(replay.driver.passes)"])
        guard again else {
            logger.notice("replay done; serving clients until stopped (--loop plays it again and again)")
            endReplay(replay)
            return
        }
        removeReplayDevice(finished, model: model, at: replay.clock)
        addReplayDevice(replay)
    }

    /// Ends the replay after its last pass, or when it cannot go on: the replay device goes
    /// (R9: what it had under way is cancelled; clients get `device` `removed`), and nothing runs
    /// any more until a client or a signal wakes the loop. The engine keeps the recording's clock.
    private func endReplay(_ replay: Replay) {
        guard !replay.driver.isOver else { return }
        removeReplayDevice(replay.driver.descriptor, model: replay.driver.source.model, at: replay.clock)
        replay.driver.end()
    }

    // MARK: - Frames and events

    private func processFrames() {
        for frame in frames { engine.process(frame, into: &events) }
        frames.removeAll()
        publishEvents()
    }

    /// Mirrors first, synchronously (what the application sees must not wait for the server),
    /// then the server's batch.
    private func publishEvents() {
        if let fresh = server.interest(newerThan: interestGeneration) {
            (interestGeneration, interest) = fresh
            // The engine explains only while a connection subscribed to explanations.
            engine.explains = interest.takesExplanations
            reportTouchMovesIfWanted()
        }
        guard !events.isEmpty else { return }
        passthrough.forward(events, logger: logger)
        publisher.add(events, wanted: interest)
        events.removeAll(keepingCapacity: true)
    }

    /// The engine makes the views' `moved` and `stationary` events — most of a frame's events —
    /// only while someone takes them: a connection subscribed to raw touches, or a mirrored panel.
    private func reportTouchMovesIfWanted() {
        let wanted = interest.takesTouches || passthrough.isActive
        if engine.reportsTouchMoves != wanted { engine.reportsTouchMoves = wanted }
    }

    private func flush() {
        publisher.flush { server.publish($0) }
    }

    /// Adds the recognizer list to the batch when it changed (the configuration was loaded or
    /// reloaded, a client defined or went away), so that `hello` lists what runs.
    private func publishRecognizers() {
        let current = engine.recognizerSummaries
        guard current != publishedRecognizers else { return }
        publishedRecognizers = current
        publisher.recognizersChanged(current)
    }

    // MARK: - Requests, signals, reload

    /// Handles the queued requests in order. Definition changes (a `define`, the definitions of a
    /// connection that closed; a reload, from ``reload()``) go to the compiler's thread, one at a time in the order they came;
    /// what it makes is installed here when it comes back (no compiling on the
    /// frame path).
    private func takeRequests(wallNow: Int64) {
        defer { publishRecognizers() }
        for item in requests.drain() {
            lag = max(lag, wallNow - item.queuedAt)
            switch item.request {
            case .connected:
                engine.connectedClients += 1
            case .disconnected(let client):
                engine.connectedClients -= 1
                definitionQueue.append(.remove(client))
            case .ping(let request):
                definitionQueue.ping(request)?.reply()
            case .define(let request):
                definitionQueue.append(.define(request))
            case .compiled(let compiled):
                install(compiled, wallNow: wallNow)
            }
        }
        compileNext()
    }

    // MARK: - Definitions

    /// The first waiting change is done (installed, refused, or nothing to do): the `ping`s
    /// that came behind it and no later change get their `pong`.
    private func changeDone() {
        var actions: [DefinitionQueue<DefinitionChange, PingRequest>.Action] = []
        definitionQueue.finishFirst(into: &actions)
        perform(actions)
    }

    /// Hands the first waiting definition change to the compiler, made from the running set,
    /// unless one is being compiled. A connection that closed without definitions changes
    /// nothing and needs no compiling.
    private func compileNext() {
        var actions: [DefinitionQueue<DefinitionChange, PingRequest>.Action] = []
        definitionQueue.next(
            skipping: { change in
                guard case .remove(let client) = change else { return false }
                return !engine.definitions.defines(client.owner)
            }, into: &actions)
        perform(actions)
    }

    private func perform(_ actions: [DefinitionQueue<DefinitionChange, PingRequest>.Action]) {
        for action in actions {
            switch action {
            case .compile(let change): compiler.compile(change, from: engine.definitions)
            case .reply(let ping): ping.reply()
            }
        }
    }

    /// Installs what the compiler made (between two frames: it only carries the devices' state
    /// over) and answers the `define`. A set made from one that is no longer running cannot
    /// come (one change at a time, all through here); were it to, it is made again from the
    /// running one.
    private func install(_ compiled: CompiledChange, wallNow: Int64) {
        definitionQueue.compilerReturned()
        guard compiled.basis == engine.definitions.generation else { return }
        defer { changeDone() }
        switch compiled.outcome {
        case .refused(let error):
            if case .define(let request) = compiled.change { request.reply(.failure(error)) }
        case .changed(let next):
            if let next {
                engine.install(next, at: engineNow(wallNow: wallNow), into: &events)
                publishEvents()
            }
            switch compiled.change {
            case .define(let request):
                request.reply(.success(()))
            case .remove, .reload:
                // What the client's definitions held (shape templates above all) goes back to
                // the system, not only to malloc's free lists.
                if next != nil { _ = gestured_release_free_memory() }
            }
        case .reloaded(let fresh, let next, let dropped):
            engine.install(next, at: engineNow(wallNow: wallNow), into: &events)
            publishEvents()
            reloaded(fresh, dropped: dropped, wallNow: wallNow)
        case .reloadFailed(let reason):
            logger.error("reload failed, keeping the running configuration: \(reason)")
            notifier.ready(status: "configuration reloaded")
        }
    }

    private func takeSignals() {
        while true {
            let signal = gestured_signal_pipe_read(signals)
            guard signal > 0 else { return }
            switch signal {
            case SIGHUP:
                reload()
            default:
                logger.info("stopping", metadata: ["signal": "\(String(cString: strsignal(signal)))"])
                notifier.stopping()
                stopping = true
            }
        }
    }

    /// SIGHUP: the configuration file is read again, and validated and compiled with the
    /// clients' definitions, on the compiler's thread, behind the definition changes queued
    /// before it. A file that does not load keeps the running configuration (and says why);
    /// one that loads replaces it (R9: gestures in progress are cancelled), reopening the devices
    /// when their settings changed (``reloaded(_:dropped:wallNow:)``).
    private func reload() {
        guard let configPath else {
            logger.notice("SIGHUP ignored: running on the built-in configuration (no --config)")
            return
        }
        notifier.reloading()
        definitionQueue.append(.reload(configPath))
        compileNext()
    }

    /// The rest of a reload, once its definitions run: the clients told what it dropped, the
    /// daemon's own settings, the devices reopened when their rules changed.
    private func reloaded(_ fresh: DaemonConfiguration, dropped: [DroppedDefinitions], wallNow: Int64) {
        defer { notifier.ready(status: "configuration reloaded") }
        for loss in dropped {
            guard case .client(let n) = loss.owner else { continue }
            logger.warning(
                "a reload dropped definitions of a client that no longer fit the configuration",
                metadata: ["client": "\(ClientID(n))", "dropped": "\(loss.dropped.map(\.name))"])
            server.dropped(DroppedMessage(loss), client: ClientID(n))
        }
        if fresh.socket != configuration.socket {
            logger.notice("socket settings change when the daemon restarts")
        }
        let rulesChanged = fresh.devices != configuration.devices
        configuration = fresh
        logger.logLevel = fresh.logLevel.loggerLevel
        publishRecognizers()
        if rulesChanged, case .live(let discovery?) = source {
            let now = Timestamp(microseconds: wallNow)
            for device in devices { remove(device, at: now) }
            discovery.rules = fresh.deviceRules
            do {
                for device in try discovery.scan() { open(device) }
            } catch {
                logger.error("cannot list input devices: \(error)")
            }
        }
        logger.info("configuration reloaded", metadata: ["recognizers": "\(engine.configuration.recognizers.count)"])
    }

    // MARK: - Helpers

    private func watch(_ fd: Int32, token: UInt64) throws(DaemonError) {
        guard gestured_epoll_add(epoll, fd, GESTURED_EPOLLIN, token) == 0 else {
            throw DaemonError("epoll_ctl(ADD, fd \(fd)): \(Self.errorText())")
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}

/// Where the input loop's frames come from. Each kind owns the clock the engine runs on, so the
/// loop has one path: read what is ready, let the source advance the engine, publish.
private enum FrameSource {
    /// Touchscreens, read when their fds are ready, found and followed through udev (nil before
    /// ``InputLoop/start(_:)``); the engine runs on CLOCK_MONOTONIC, the kernel's event clock.
    case live(discovery: DeviceDiscovery?)
    /// A recording played in place of devices, paced against CLOCK_MONOTONIC; the engine runs on
    /// the recording's clock.
    case replay(Replay)
}

/// A recording being played and the engine clock it drives. A class, so the loop advances the
/// driver in place (a copy per iteration would copy its read-ahead frames too).
private final class Replay {
    var driver: ReplayDriver
    /// The engine's present: the latest frame time played, or the paced clock if later.
    var clock = Timestamp(microseconds: 0)
    /// The frames due in this iteration (kept to reuse its storage).
    var due: [TouchFrame] = []

    init(_ driver: ReplayDriver) { self.driver = driver }
}

/// A recording to play in place of devices (`gestured run --replay`).
public struct ReplayOptions: Sendable {
    public var recording: EvemuRecording
    /// Names the replay device (`device` in messages), usually the file's name.
    public var label: String
    /// Times real time; nil plays as fast as possible.
    public var speed: Double?
    public var loops: Bool

    public init(recording: EvemuRecording, label: String, speed: Double?, loops: Bool) {
        self.recording = recording
        self.label = label
        self.speed = speed
        self.loops = loops
    }

    /// The recorded device's identity, for the configuration's device entries.
    var identity: DeviceIdentity {
        DeviceIdentity(name: recording.description.name, id: recording.description.id)
    }
}
