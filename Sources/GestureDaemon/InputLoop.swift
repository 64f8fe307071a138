import CLinuxSupport
import GestureEngine
import GestureProtocol
import GestureServer
import Glibc
import Logging
import TouchInput

/// The input thread: one epoll loop that owns the devices, the udev monitor, the engine and its
/// timers (the epoll timeout is the engine's next deadline, so an idle daemon never wakes up).
/// It hands the server a batch of publications per iteration, and takes client requests from
/// the ``RequestQueue``'s eventfd and signals through a self-pipe.
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

    private var discovery: DeviceDiscovery?
    private var devices: [DeviceID: TouchDevice] = [:]
    /// Mirrors of the panels with `passthrough` (docs/PASSTHROUGH.md).
    private var passthrough = PassthroughRouter()
    private var replay: ReplayDriver?
    private var replayFrames: [TouchFrame] = []
    private var nextDeviceID: UInt32 = 1
    /// The engine's clock when it is not the monotonic clock (replay), advanced by frames.
    private var replayEngineTime = Timestamp(microseconds: 0)
    private var nextWatchdog: Int64?
    /// The input thread's greatest lag since the last watchdog ping: how long a request waited
    /// in the queue, or a live frame after its kernel time, before being handled.
    private var lag: Int64 = 0
    private var stopping = false

    init(
        configuration: DaemonConfiguration, configPath: String?, server: GestureServer, requests: RequestQueue,
        notifier: SystemdNotifier, logger: Logger
    ) throws(DaemonError) {
        self.configuration = configuration
        self.configPath = configPath
        self.server = server
        self.requests = requests
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
        server.setRecognizers(engine.recognizerSummaries)
    }

    deinit {
        close(signals)
        close(epoll)
    }

    // MARK: - Start

    /// Opens the frame source: discovery and the touchscreens present, or the recording.
    /// Returns a status line for READY.
    func start(_ source: Source) throws(DaemonError) -> String {
        switch source {
        case .devices:
            let finder: DeviceDiscovery
            do {
                finder = try DeviceDiscovery(rules: configuration.deviceRules, logger: logger)
            } catch {
                throw DaemonError("cannot watch for input devices: \(error)")
            }
            discovery = finder
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
            do {
                replay = try ReplayDriver(
                    recording: options.recording, label: options.label,
                    settings: configuration.deviceRules.settings(for: options.identity), speed: options.speed,
                    loops: options.loops, id: id)
            } catch {
                throw DaemonError("\(options.label): \(error)")
            }
            addReplayDevice()
            flush()
            return "replaying \(options.label)"
        }
    }

    // MARK: - The loop

    /// Runs until SIGTERM or SIGINT; returns after active gestures were cancelled and published.
    func run() {
        nextWatchdog = notifier.watchdogInterval.map { gestured_monotonic_us() + $0 }
        while !stopping {
            let count = gestured_epoll_wait(epoll, &ready, Int32(ready.count), timeoutMilliseconds())
            if count < 0 {
                if errno == EINTR { continue }
                logger.critical("epoll_wait failed: \(Self.errorText()); stopping")
                break
            }
            // Devices and signals first, client requests last: a frame never waits for a define.
            for i in 0..<Int(count) where ready[i].token != Token.requests { handle(ready[i].token) }
            for i in 0..<Int(count) where ready[i].token == Token.requests { handle(ready[i].token) }
            tick()
            flush()
        }
        shutDownDevices()
        flush()
    }

    private func handle(_ token: UInt64) {
        switch token {
        case Token.signals: takeSignals()
        case Token.requests: takeRequests()
        case Token.discovery: takeHotplug()
        default:
            let id = DeviceID(UInt32(truncatingIfNeeded: token - Token.deviceBase))
            if let device = devices[id] { read(device) }
        }
    }

    /// Timers, replay pacing and the watchdog, whatever woke the loop.
    private func tick() {
        let wallNow = gestured_monotonic_us()
        if let replay {
            if !replay.isOver { stepReplay(wallNow: wallNow) }
        } else {
            engine.advance(to: Timestamp(microseconds: wallNow), into: &events)
            publishEvents()
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
    private func timeoutMilliseconds() -> Int32 {
        let wallNow = gestured_monotonic_us()
        var wake: Int64?
        func consider(_ t: Int64?) { if let t { wake = min(wake ?? t, t) } }
        consider(nextWatchdog)
        if let replay {
            // A replay that is over leaves no clock running: the loop sleeps until a client or a
            // signal wakes it.
            if replay.isOver {
            } else if let paused = replay.pausedUntil {
                consider(paused)
            } else if replay.speed == nil {
                return 0
            } else {
                consider(replay.nextFrameWallTime() ?? (replay.isPassFinished ? nil : wallNow))
                consider(engine.nextDeadline.flatMap(replay.wallTime(ofEngineTime:)))
                if replay.isPassFinished && engine.nextDeadline == nil { consider(wallNow) }
            }
        } else {
            consider(engine.nextDeadline?.microseconds)
        }
        guard let wake else { return -1 }
        let remaining = wake - wallNow
        if remaining <= 0 { return 0 }
        // Round up: waking a little late fires the deadline; waking early spins once more.
        return Int32(clamping: (remaining + 999) / 1000)
    }

    /// The engine's present: the monotonic clock for live devices, the replay's clock otherwise.
    private var engineNow: Timestamp {
        if replay != nil { return replayEngineTime }
        return Timestamp(microseconds: gestured_monotonic_us())
    }

    // MARK: - Devices

    private func open(_ discovered: DiscoveredDevice) {
        if devices.values.contains(where: { $0.identity.devnode == discovered.devnode }) { return }
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
        devices[device.id] = device
        engine.addDevice(device.descriptor)
        if device.settings.passthrough { passthrough.attach(device, logger: logger) }
        publisher.deviceAdded(
            device.descriptor, model: device.model, vendor: device.identity.id.vendor,
            product: device.identity.id.product)
        notifier.status("\(devices.count) touchscreen\(devices.count == 1 ? "" : "s")")
    }

    private func read(_ device: TouchDevice) {
        let outcome = device.read(into: &frames)
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
        devices[device.id] = nil
        publisher.deviceRemoved(
            device.descriptor, model: device.model, vendor: device.identity.id.vendor,
            product: device.identity.id.product)
        notifier.status("\(devices.count) touchscreen\(devices.count == 1 ? "" : "s")")
    }

    private func takeHotplug() {
        guard let discovery else { return }
        for event in discovery.receive() {
            switch event {
            case .added(let device):
                open(device)
            case .removed(let devnode):
                guard let device = devices.values.first(where: { $0.identity.devnode == devnode }) else { continue }
                // Whatever the node still had comes first (its read may already report the removal).
                read(device)
                if devices[device.id] != nil { remove(device, at: Timestamp(microseconds: gestured_monotonic_us())) }
            }
        }
    }

    private func shutDownDevices() {
        let now = engineNow
        for device in devices.values.sorted(by: { $0.id < $1.id }) { remove(device, at: now) }
        if let replay, !replay.isOver { removeReplayDevice(replay.descriptor, at: now) }
        replay = nil
    }

    private func takeDeviceID() -> DeviceID {
        defer { nextDeviceID += 1 }
        return DeviceID(nextDeviceID)
    }

    // MARK: - Replay

    private func addReplayDevice() {
        guard let replay else { return }
        engine.addDevice(replay.descriptor)
        publisher.deviceAdded(replay.descriptor, model: replay.source.model, vendor: nil, product: nil)
        logger.info("replaying", metadata: ["recording": "\(replay.label)", "device": "\(replay.descriptor.id)"])
    }

    private func removeReplayDevice(_ descriptor: DeviceDescriptor, at time: Timestamp) {
        engine.removeDevice(descriptor.id, at: time, into: &events)
        publishEvents()
        if let model = replay?.source.model {
            publisher.deviceRemoved(descriptor, model: model, vendor: nil, product: nil)
        }
    }

    private func stepReplay(wallNow: Int64) {
        guard var driver = replay else { return }
        driver.resume(wallNow: wallNow)
        guard driver.pausedUntil == nil else {
            replay = driver
            return
        }
        replayFrames.removeAll(keepingCapacity: true)
        let taken: Result<Void, ReplayError>
        do {
            try driver.takeDue(wallNow: wallNow, into: &replayFrames)
            taken = .success(())
        } catch {
            taken = .failure(error)
        }
        replay = driver
        for frame in replayFrames {
            engine.process(frame, into: &events)
            replayEngineTime = max(replayEngineTime, frame.time)
        }
        if case .failure(let error) = taken {
            logger.error("replay stopped: \(driver.label): \(error)")
            endReplay()
            return
        }
        if let now = driver.engineNow(wallNow: wallNow) {
            replayEngineTime = max(replayEngineTime, now)
            engine.advance(to: replayEngineTime, into: &events)
        }
        publishEvents()
        guard driver.isPassFinished else { return }
        // Unpaced: run the remaining timers out at once; paced, they fire in their own time.
        if driver.speed == nil, let deadline = engine.nextDeadline {
            replayEngineTime = max(replayEngineTime, deadline)
            engine.advance(to: replayEngineTime, into: &events)
            publishEvents()
            return
        }
        guard engine.nextDeadline == nil else { return }
        let finished = driver.descriptor
        let eventCount = driver.eventCount
        let again: Bool
        do {
            again = try driver.finishPass(engineTime: replayEngineTime, wallNow: wallNow, nextID: takeDeviceID())
        } catch {
            replay = driver
            logger.error("replay stopped: \(driver.label): \(error)")
            endReplay()
            return
        }
        replay = driver
        logger.info("replay pass done", metadata: ["events": "\(eventCount)", "passes": "\(driver.passes)"])
        guard again else {
            logger.notice("replay done; serving clients until stopped (--loop plays it again and again)")
            endReplay()
            return
        }
        removeReplayDevice(finished, at: replayEngineTime)
        addReplayDevice()
    }

    /// Ends the replay after its last pass, or when it cannot go on: the replay device goes
    /// (R9: what it had under way is cancelled; clients get `device` `removed`), and nothing runs
    /// any more until a client or a signal wakes the loop. The engine keeps the recording's clock.
    private func endReplay() {
        guard var driver = replay, !driver.isOver else { return }
        removeReplayDevice(driver.descriptor, at: replayEngineTime)
        driver.end()
        replay = driver
    }

    // MARK: - Frames and events

    private func processFrames() {
        if replay == nil, let first = frames.first {
            lag = max(lag, gestured_monotonic_us() - first.time.microseconds)
        }
        for frame in frames { engine.process(frame, into: &events) }
        frames.removeAll()
        publishEvents()
    }

    /// Mirrors first, synchronously (what the application sees must not wait for the server),
    /// then the server's batch.
    private func publishEvents() {
        guard !events.isEmpty else { return }
        passthrough.forward(events, logger: logger)
        if let fresh = server.interest(newerThan: interestGeneration) {
            (interestGeneration, interest) = fresh
            // The engine explains only while a connection subscribed to explanations.
            engine.explains = interest.takesExplanations
        }
        publisher.add(events, wanted: interest)
        events.removeAll(keepingCapacity: true)
    }

    private func flush() {
        server.publish(publisher.take())
    }

    // MARK: - Requests, signals, reload

    /// Handles the queued requests in order, but at most one `define` per loop iteration: the
    /// rest go back to the queue, so the devices are read between two defines.
    private func takeRequests() {
        let queued = requests.drain()
        let now = gestured_monotonic_us()
        var defines = 0
        for (i, item) in queued.enumerated() {
            if case .define = item.request {
                defines += 1
                if defines > 1 {
                    requests.putBack(queued[i...])
                    return
                }
            }
            lag = max(lag, now - item.queuedAt)
            switch item.request {
            case .connected:
                engine.connectedClients += 1
            case .disconnected(let client):
                engine.connectedClients -= 1
                let before = engine.recognizerSummaries.count
                engine.removeDefinitions(of: client.owner, at: engineNow, into: &events)
                publishEvents()
                if engine.recognizerSummaries.count != before {
                    server.setRecognizers(engine.recognizerSummaries)
                    // What the client's definitions held (shape templates above all) goes back to
                    // the system, not only to malloc's free lists.
                    _ = gestured_release_free_memory()
                }
            case .ping(let request):
                request.reply()
            case .define(let request):
                do {
                    try engine.define(
                        owner: request.client.owner, regions: request.definitions.regions,
                        recognizers: request.definitions.recognizers, at: engineNow, into: &events)
                    publishEvents()
                    server.setRecognizers(engine.recognizerSummaries)
                    request.reply(.success(()))
                } catch {
                    request.reply(.failure(error))
                }
            }
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

    /// SIGHUP: re-reads the configuration file. A file that does not load keeps the running
    /// configuration (and says why); one that loads replaces it (R9: gestures in progress are
    /// cancelled), reopening the devices when their settings changed.
    private func reload() {
        guard let configPath else {
            logger.notice("SIGHUP ignored: running on the built-in configuration (no --config)")
            return
        }
        notifier.reloading()
        defer { notifier.ready(status: "configuration reloaded") }
        let fresh: DaemonConfiguration
        do {
            fresh = try ConfigurationLoader.load(contentsOf: configPath)
        } catch {
            logger.error("reload failed, keeping the running configuration: \(error)")
            return
        }
        do {
            let losses = try engine.reload(fresh.engineConfiguration, at: engineNow, into: &events)
            for loss in losses {
                guard case .client(let n) = loss.owner else { continue }
                logger.warning(
                    "a reload dropped definitions of a client that no longer fit the configuration",
                    metadata: ["client": "\(ClientID(n))", "dropped": "\(loss.dropped.map(\.name))"])
                server.dropped(DroppedMessage(loss), client: ClientID(n))
            }
        } catch {
            logger.error("reload failed, keeping the running configuration: \(configPath): \(error)")
            return
        }
        publishEvents()
        if fresh.socket != configuration.socket {
            logger.notice("socket settings change when the daemon restarts")
        }
        let rulesChanged = fresh.devices != configuration.devices
        configuration = fresh
        logger.logLevel = fresh.logLevel.loggerLevel
        server.setRecognizers(engine.recognizerSummaries)
        if rulesChanged, let discovery {
            let now = Timestamp(microseconds: gestured_monotonic_us())
            for device in devices.values.sorted(by: { $0.id < $1.id }) { remove(device, at: now) }
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
