import CLinuxSupport
import GestureEngine
import GestureServer
import Glibc
import Logging
import TouchInput

/// Where the input loop's frames come from, of two kinds — live touchscreens
/// (``LiveFrameSource``) or a paced recording (``RecordingFrameSource``) — each owning what it
/// reads, the clock the engine runs on and the wake-up it needs next. So the loop has one path:
/// wait until the source's next wake-up (or a file descriptor), hand the source what woke it, let
/// the source bring the engine to the present, publish.
protocol FrameSource: AnyObject {
    /// Opens what the source reads (the touchscreens present, the recording's device); returns a
    /// status line for READY.
    func start(_ path: FramePath) -> String
    /// The engine's present at monotonic time `wallNow` (µs).
    func engineNow(wallNow: Int64) -> Timestamp
    /// The monotonic time the loop must wake at for this source; nil: not until something else
    /// wakes it; at or before `wallNow`: at once.
    func nextWakeUp(_ path: FramePath, wallNow: Int64) -> Int64?
    /// One of the source's file descriptors is ready (an epoll token that is not the loop's own:
    /// ``LoopToken``); returns the kernel time (µs) of the newest frame it read, if it read one.
    func handle(_ token: UInt64, _ path: FramePath, wallNow: Int64) -> Int64?
    /// Brings the engine to `wallNow`, whatever woke the loop: the frames due and the timers.
    func tick(_ path: FramePath, wallNow: Int64)
    /// A reload changed the device rules.
    func rulesChanged(_ rules: [DeviceRule], _ path: FramePath, wallNow: Int64)
    /// The greatest lag of a frame behind its time since the last call (µs), and from now on none.
    func takeLag() -> Int64
    /// The daemon stops: what the source had under way ends (R9), its devices go.
    func shutDown(_ path: FramePath, wallNow: Int64)
    /// The panels open now (the recording's device while it plays), for the metrics.
    var panels: [DeviceDescriptor] { get }
    /// The panels open now as `gestured record` sees them: each one's description and the node
    /// whose owner and mode say who may record it (looked at now).
    var recordable: [RecordablePanel] { get }
    /// Starts or stops keeping a panel's events as they are read, for its recordings: while on,
    /// the source hands each read's events to ``FramePath/recorded(_:device:)`` before the frames
    /// they make.
    func capture(_ device: DeviceID, _ on: Bool)
}

/// A recording played in place of devices (`gestured run --replay`, and `gestured replay` on a
/// virtual clock), through ``ReplayDriver``: paced against the monotonic clock, or as fast as
/// the engine goes. The engine runs on the recording's clock.
final class RecordingFrameSource: FrameSource {
    let driver: ReplayDriver
    /// The engine's present: the latest frame time played, or the paced clock if later.
    private var clock = Timestamp(microseconds: 0)
    /// The frames due in this iteration (kept to reuse its storage, each frame's touches too).
    private var due = TouchFrameBuffer()
    private var nextID: UInt32
    /// Sees each frame on its way into the engine, with its device (for pictures).
    private let observe: ((DeviceDescriptor, TouchFrame) -> Void)?
    /// Why the replay stopped before its end, when it did.
    private(set) var failure: ReplayError?
    /// What the recording holds that no kernel would have sent (events for slots the panel does
    /// not have), for `replay` to say: the daemon logs it.
    private(set) var notes: [String] = []
    /// The recording's file: who may read it may record the replay device.
    private let file: String?

    /// Plays `driver`, whose first pass is device `firstID` (each pass of a loop is a fresh
    /// device, with the next id); `file` is the recording's path, when it has one.
    init(
        _ driver: ReplayDriver, firstID: DeviceID, file: String? = nil,
        observe: ((DeviceDescriptor, TouchFrame) -> Void)? = nil
    ) {
        self.driver = driver
        nextID = firstID.rawValue + 1
        self.file = file
        self.observe = observe
    }

    /// The replay is over (its last pass done, or stopped): no more frames, no clock.
    var isOver: Bool { driver.isOver }

    /// Adds the replay device. The first pass is logged at info level, the others at debug
    /// level: a looped recording at `--speed max` plays thousands of passes a minute.
    func start(_ path: FramePath) -> String {
        let descriptor = driver.descriptor
        path.addDevice(descriptor, model: driver.source.model, vendor: nil, product: nil, panel: driver.settings.panel)
        path.logger.log(
            level: driver.passes == 0 ? .info : .debug, "replaying",
            metadata: ["recording": "\(driver.label)", "device": "\(descriptor.id)"])
        return "replaying \(driver.label)"
    }

    func engineNow(wallNow: Int64) -> Timestamp { clock }

    /// A recording watches no file descriptor.
    func handle(_ token: UInt64, _ path: FramePath, wallNow: Int64) -> Int64? { nil }

    /// The replay device keeps the settings it was opened with.
    func rulesChanged(_ rules: [DeviceRule], _ path: FramePath, wallNow: Int64) {}

    /// Frames are played when they are due, not read behind a kernel: nothing to report.
    func takeLag() -> Int64 { 0 }

    var panels: [DeviceDescriptor] { driver.isOver ? [] : [driver.descriptor] }

    var recordable: [RecordablePanel] {
        guard !driver.isOver else { return [] }
        return [
            RecordablePanel(
                descriptor: driver.descriptor, description: driver.recording.description, node: file,
                permissions: file.flatMap(PositionAccess.Node.init(path:)))
        ]
    }

    func capture(_ device: DeviceID, _ on: Bool) {
        guard !driver.isOver, device == driver.descriptor.id else { return }
        driver.capture(on)
    }

    /// The events the replay device read since the last call, to its recordings.
    private func handCaptured(_ path: FramePath) {
        guard driver.isCapturing else { return }
        path.recorded(driver.takeCaptured(), device: driver.descriptor.id)
    }

    func nextWakeUp(_ path: FramePath, wallNow: Int64) -> Int64? {
        // A replay that is over leaves no clock running: the loop sleeps until a client or a
        // signal wakes it.
        if driver.isOver { return nil }
        if let paused = driver.pausedUntil { return paused }
        if driver.speed == nil { return wallNow }
        var wake: Int64?
        func consider(_ t: Int64?) { if let t { wake = min(wake ?? t, t) } }
        consider(driver.nextFrameWallTime() ?? (driver.isPassFinished ? nil : wallNow))
        // A closure, not `driver.wallTime(ofEngineTime:)` unapplied: that would copy the whole
        // driver (its recording, its reader, its frames) into a closure every iteration.
        if let deadline = path.nextDeadline { consider(driver.wallTime(ofEngineTime: deadline)) }
        if driver.isPassFinished && path.nextDeadline == nil { consider(wallNow) }
        return wake
    }

    /// Plays what is due of the recording, advances the engine to the recording's clock, and ends
    /// or restarts the pass when its frames and timers are through.
    func tick(_ path: FramePath, wallNow: Int64) {
        guard !driver.isOver else { return }
        driver.resume(wallNow: wallNow)
        guard driver.pausedUntil == nil else { return }
        due.removeAll()
        var failure: ReplayError?
        do {
            try driver.takeDue(wallNow: wallNow, into: &due)
        } catch {
            failure = error
        }
        handCaptured(path)
        for frame in due {
            observe?(driver.descriptor, frame)
            path.process(frame)
            clock = max(clock, frame.time)
        }
        if let failure {
            stop(path, because: failure)
            return
        }
        if let now = driver.engineNow(wallNow: wallNow) {
            clock = max(clock, now)
            path.advance(to: clock)
        } else {
            path.publishEvents()
        }
        guard driver.isPassFinished else { return }
        // The pass ends at its last event (after its last frame, when events follow it).
        clock = max(clock, driver.passEndTime)
        // Unpaced: run the remaining timers out at once; paced, they fire in their own time.
        if driver.speed == nil, let deadline = path.nextDeadline {
            clock = max(clock, deadline)
            path.advance(to: clock)
            return
        }
        guard path.nextDeadline == nil else { return }
        if let problem = driver.source.slotProblem {
            // Said of the first pass; the others repeat it.
            if driver.passes == 0 { notes.append(problem) }
            path.logger.log(
                level: driver.passes == 0 ? .warning : .debug, "\(problem)",
                metadata: ["recording": "\(driver.label)"])
        }
        handCaptured(path)
        let finished = driver.descriptor
        let model = driver.source.model
        let eventCount = driver.eventCount
        let again: Bool
        do {
            again = try driver.finishPass(engineTime: clock, wallNow: wallNow, nextID: DeviceID(nextID))
            nextID += 1
        } catch {
            stop(path, because: error)
            return
        }
        path.logger.log(
            level: driver.passes == 1 ? .info : .debug, "replay pass done",
            metadata: ["events": "\(eventCount)", "passes": "\(driver.passes)"])
        guard again else {
            path.logger.notice("replay done; serving clients until stopped (--loop plays it again and again)")
            end(path)
            return
        }
        path.removeDevice(finished, model: model, vendor: nil, product: nil, at: clock)
        _ = start(path)
    }

    func shutDown(_ path: FramePath, wallNow: Int64) { end(path) }

    private func stop(_ path: FramePath, because error: ReplayError) {
        path.logger.error("replay stopped: \(driver.label): \(error)")
        failure = error
        end(path)
    }

    /// Ends the replay after its last pass, or when it cannot go on: the replay device goes
    /// (R9: what it had under way is cancelled; readers get `device` `removed`), and nothing runs
    /// any more until a client or a signal wakes the loop. The engine keeps the recording's clock.
    private func end(_ path: FramePath) {
        guard !driver.isOver else { return }
        handCaptured(path)
        path.removeDevice(driver.descriptor, model: driver.source.model, vendor: nil, product: nil, at: clock)
        driver.end()
    }
}

/// Touchscreens, read when their file descriptors are ready, found and followed through udev;
/// the engine runs on CLOCK_MONOTONIC, the kernel's event clock. Watches its descriptors in the
/// input loop's epoll set (``LoopToken``).
final class LiveFrameSource: FrameSource {
    private let epoll: Int32
    private let discovery: DeviceDiscovery
    private let notifier: SystemdNotifier
    private let logger: Logger
    /// The open touchscreens, in the order they were opened (ids ascending). A list, not a
    /// dictionary: found by id on every frame, where hashing costs more than a scan of a few.
    private var devices: [TouchDevice] = []
    private var frames = TouchFrameBuffer()
    private var nextDeviceID: UInt32 = 1
    /// The greatest lag of a frame behind its kernel time since the last ``takeLag()``.
    private var lag: Int64 = 0

    /// Watches for touchscreens with `rules`, in `epoll`'s set.
    init(rules: [DeviceRule], epoll: Int32, notifier: SystemdNotifier, logger: Logger) throws(DaemonError) {
        do {
            discovery = try DeviceDiscovery(rules: rules, logger: logger)
        } catch {
            throw DaemonError("cannot watch for input devices: \(error)")
        }
        self.epoll = epoll
        self.notifier = notifier
        self.logger = logger
        guard gestured_epoll_add(epoll, discovery.fileDescriptor, GESTURED_EPOLLIN, LoopToken.discovery) == 0 else {
            throw DaemonError("epoll_ctl(ADD, udev monitor): \(String(cString: strerror(errno)))")
        }
    }

    /// Opens the touchscreens present; returns a status line for READY.
    func start(_ path: FramePath) -> String {
        scan(path)
        if devices.isEmpty {
            logger.notice("no touchscreen present yet; waiting for one to be plugged in")
            return "waiting for a touchscreen"
        }
        return status
    }

    private var status: String { "\(devices.count) touchscreen\(devices.count == 1 ? "" : "s")" }

    func engineNow(wallNow: Int64) -> Timestamp { Timestamp(microseconds: wallNow) }

    var panels: [DeviceDescriptor] { devices.map(\.descriptor) }

    var recordable: [RecordablePanel] {
        devices.map { device in
            RecordablePanel(
                descriptor: device.descriptor, description: device.model.description, node: device.identity.devnode,
                permissions: PositionAccess.Node(descriptor: device.fileDescriptor))
        }
    }

    func capture(_ device: DeviceID, _ on: Bool) {
        devices.first { $0.id == device }?.capture(on)
    }

    func nextWakeUp(_ path: FramePath, wallNow: Int64) -> Int64? { path.nextDeadline?.microseconds }

    func tick(_ path: FramePath, wallNow: Int64) { path.advance(to: Timestamp(microseconds: wallNow)) }

    func shutDown(_ path: FramePath, wallNow: Int64) {
        for device in devices { remove(device, path, at: Timestamp(microseconds: wallNow)) }
    }

    func takeLag() -> Int64 {
        defer { lag = 0 }
        return lag
    }

    /// The udev monitor, or the device of a device token.
    func handle(_ token: UInt64, _ path: FramePath, wallNow: Int64) -> Int64? {
        if token == LoopToken.discovery {
            takeHotplug(path, wallNow: wallNow)
            return nil
        }
        let id = DeviceID(UInt32(truncatingIfNeeded: token - LoopToken.deviceBase))
        guard let device = devices.first(where: { $0.id == id }) else { return nil }
        return read(device, path, wallNow: wallNow)
    }

    /// A reload changed the device rules: every device is opened again under the new ones.
    func rulesChanged(_ rules: [DeviceRule], _ path: FramePath, wallNow: Int64) {
        let now = Timestamp(microseconds: wallNow)
        for device in devices { remove(device, path, at: now) }
        discovery.rules = rules
        scan(path)
    }

    private func scan(_ path: FramePath) {
        do {
            for device in try discovery.scan() { open(device, path) }
        } catch {
            logger.error("cannot list input devices: \(error)")
        }
    }

    private func open(_ discovered: DiscoveredDevice, _ path: FramePath) {
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
            device = try discovered.open(id: DeviceID(nextDeviceID), rules: discovery.rules, logger: logger)
            nextDeviceID += 1
        } catch {
            logger.warning(
                "cannot use touchscreen",
                metadata: [
                    "device": "\(discovered.label)", "name": "\(discovered.identity.name)", "reason": "\(error)",
                ])
            return
        }
        let token = LoopToken.deviceBase + UInt64(device.id.rawValue)
        guard gestured_epoll_add(epoll, device.fileDescriptor, GESTURED_EPOLLIN, token) == 0 else {
            logger.error("epoll_ctl(ADD, fd \(device.fileDescriptor)): \(String(cString: strerror(errno)))")
            device.close()
            return
        }
        devices.append(device)
        path.addDevice(
            device.descriptor, model: device.model, vendor: device.identity.id.vendor,
            product: device.identity.id.product, panel: device.settings.panel,
            screen: device.settings.screen.map { PanelWake.Reader(file: $0) }, at: Timestamp(microseconds: gestured_monotonic_us()))
        if device.settings.passthrough { path.mirror(device) }
        notifier.status(status)
    }

    /// Reads what `device` has; returns the kernel time of its newest frame, if it had one.
    @discardableResult
    private func read(_ device: TouchDevice, _ path: FramePath, wallNow: Int64) -> Int64? {
        let outcome = device.read(into: &frames)
        if device.isCapturing { path.recorded(device.takeCaptured(), device: device.id) }
        let times = frames.times
        if let times { lag = max(lag, wallNow - times.first.microseconds) }
        let newest = times?.last.microseconds
        path.process(&frames)
        switch outcome {
        case .drained:
            break
        case .resynced(let time):
            path.resync(device.id, at: time)
        case .removed(let time, _):
            remove(device, path, at: time)
        }
        return newest
    }

    /// Takes a device out: its touches are cancelled (R9) before clients hear it is gone.
    private func remove(_ device: TouchDevice, _ path: FramePath, at time: Timestamp) {
        _ = gestured_epoll_remove(epoll, device.fileDescriptor)
        device.close(at: time, into: &frames)
        path.process(&frames)
        devices.removeAll { $0 === device }
        path.removeDevice(
            device.descriptor, model: device.model, vendor: device.identity.id.vendor,
            product: device.identity.id.product, at: time)
        notifier.status(status)
    }

    private func takeHotplug(_ path: FramePath, wallNow: Int64) {
        for event in discovery.receive() {
            switch event {
            case .added(let device):
                open(device, path)
            case .removed(let devnode):
                guard let device = devices.first(where: { $0.identity.devnode == devnode }) else { continue }
                // Whatever the node still had comes first (its read may already report the removal).
                read(device, path, wallNow: wallNow)
                if devices.contains(where: { $0 === device }) {
                    remove(device, path, at: Timestamp(microseconds: wallNow))
                }
            }
        }
    }
}
