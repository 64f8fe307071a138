import GestureEngine
import GestureLogging
import GestureMetrics
import GestureProtocol
import GestureServer
import Logging
import NIOCore
import NIOPosix
import TouchInput

/// The one frame path, the daemon's and `gestured replay`'s alike: frames into the engine, and
/// its events, in order, to the passthrough mirrors (synchronously: what the application sees
/// must not wait for the server) and through the one mapping to the wire (``Publisher``,
/// ``WireMapping``) into the batch that ``flush(_:)`` hands on. A ``FrameSource`` drives it on
/// its own clock. The engine is reached through here only, so every event it makes takes this
/// path.
///
/// Confined to one thread (the daemon's input thread).
final class FramePath {
    private var engine: GestureEngine
    private var events: [EngineEvent] = []
    private var publisher = Publisher()
    /// Mirrors of the panels with `passthrough` (docs/PASSTHROUGH.md).
    private var passthrough = PassthroughRouter()
    /// What the readers want: who takes each publication is decided on it (``WireMapping``).
    private var interest: Interest
    /// The server whose readers' interest it follows (the daemon's); nil: the interest never
    /// changes (`replay`). The server itself, not a closure over it: asked on every wake-up, a
    /// closure's context is retained and released each time.
    private let server: GestureServer?
    /// What `hello` lists, as last published.
    private var publishedRecognizers: [RecognizerSummary]?
    /// The screens of the panels with `screen`, and the timers that read them on the worker.
    private var screens: [(wake: PanelWake, reading: RepeatedTask?)] = []
    /// Each panel's rotation, as its model maps it, for `status` and `panels`.
    private var rotations: [(id: DeviceID, rotation: Rotation)] = []
    /// The panels with a stage before their arena, whose events are counted and logged, with what
    /// was counted on each since it was added.
    private var stagePanels: [(id: DeviceID, label: String, counts: Counts)] = []
    let logger: Logger
    /// What it counts for the metrics (``InputCounters``).
    private(set) var counters = InputCounters()
    /// When the frames handled now arrived (monotonic µs): the loop sets it each iteration.
    var arrival: Int64 = 0
    /// Whether frames carry CLOCK_MONOTONIC kernel times (live panels) rather than a recording's
    /// clock: then a frame's line latency is measured from its own time, else from its arrival.
    var framesCarryMonotonicTime = true
    /// The earliest arrival (monotonic µs) of the frames whose events are not yet handed on; 0:
    /// none.
    private(set) var pendingSince: Int64 = 0
    /// The recordings of panels under way (``PanelRecordings``).
    var recordings = PanelRecordings()
    /// The journal's rate limit for what each user's `record` requests log: started, stopped,
    /// refused (a user recording in a loop gets its share, not a line a request).
    let recordingLog = LogThrottle()

    init(
        engine: GestureEngine, interest: Interest,
        server: GestureServer? = nil, logger: Logger
    ) {
        self.engine = engine
        self.interest = interest
        self.server = server
        self.logger = logger
        followInterest()
        publishRecognizers()
    }

    // MARK: The engine's state

    /// When the engine's next timer fires, if one is set (``advance(to:)`` fires it).
    var nextDeadline: Timestamp? { engine.nextDeadline }

    /// The running definitions: what the next definition change is compiled from.
    var definitions: DefinitionSet { engine.definitions }

    /// The engine's counts for the metrics: gesture reports and recognizer failures.
    var reportCounts: [ReportCount] { engine.reportCounts }
    var failureCounts: [FailureCount] { engine.failureCounts }

    /// The counters the frame path keeps (``InputCounters``, the mirrors' frames), and those of one
    /// panel with a stage before its arena since it was added (nil: it has none).
    var counts: Counts {
        var counts = counters.counts
        counts[.framesRead] = counters.frames
        counts[.touchesRead] = counters.touches
        counts[.mirrorFrames] = passthrough.framesWritten
        return counts
    }
    func counts(of device: DeviceID) -> Counts? { stagePanels.first { $0.id == device }?.counts }

    /// The clients connected, for the begin gate `when.client-connected` (R3).
    var connectedClients: Int {
        get { engine.connectedClients }
        set { engine.connectedClients = newValue }
    }

    // MARK: Frames

    /// Runs `frames` through the engine and empties the buffer.
    func process(_ frames: inout TouchFrameBuffer) {
        if screens.isEmpty {
            for frame in frames {
                count(frame)
                engine.process(frame, into: &events)
            }
        } else {
            for frame in frames {
                count(frame)
                watchScreen(frame)
                engine.process(frame, into: &events)
            }
        }
        frames.removeAll()
        publishEvents()
    }

    /// Tells the engine the panel's screen state when a touch lands after a quiet moment: the
    /// latest reading, taken on the worker (the input thread reads no file).
    private func watchScreen(_ frame: TouchFrame) {
        guard let i = screens.firstIndex(where: { $0.wake.device == frame.device }),
            let reading = screens[i].wake.landing(frame)
        else { return }
        counters.counts[.screenReads] &+= 1
        // An unreadable file is taken as on (its reader logs why): it never keeps a touch from anyone.
        engine.screen(frame.device, isOn: reading != .off)
    }

    /// Runs one frame through the engine (publish with ``advance(to:)`` or ``publishEvents()``).
    func process(_ frame: TouchFrame) {
        count(frame)
        engine.process(frame, into: &events)
    }

    @inline(__always)
    private func count(_ frame: TouchFrame) {
        counters.count(frame, arrival: arrival)
        if pendingSince == 0 { pendingSince = framesCarryMonotonicTime ? frame.time.microseconds : arrival }
    }

    /// Fires the timers due by `time`.
    func advance(to time: Timestamp) {
        engine.advance(to: time, into: &events)
        publishEvents()
    }

    /// A device's stream lost events (SYN_DROPPED): what it had under way is resynchronized.
    func resync(_ device: DeviceID, at time: Timestamp) {
        engine.resync(device, at: time, into: &events)
        publishEvents()
    }

    /// Installs a definition set the compiler made (R9: what it ends is cancelled).
    func install(_ set: DefinitionSet, at time: Timestamp) {
        engine.install(set, at: time, into: &events)
        publishEvents()
    }

    // MARK: Devices

    /// A device the engine now knows: later events name it, readers get `device` `added`. `panel`:
    /// its stage before the arena, from `time` (nil: its first frame); `screen`: what reads its
    /// screen's state (live panels only), every ``PanelWake/interval`` on the server's worker.
    func addDevice(
        _ descriptor: DeviceDescriptor, model: TouchscreenModel, vendor: UInt16?, product: UInt16?,
        panel: PanelSettings = PanelSettings(), screen: PanelWake.Reader? = nil, at time: Timestamp? = nil
    ) {
        engine.addDevice(descriptor, panel: panel, at: time)
        if panel.isActive { stagePanels.append((descriptor.id, descriptor.label, Counts())) }
        if let screen { screens.append((PanelWake(device: descriptor.id, reader: screen), read(screen))) }
        rotations.append((descriptor.id, model.mapper.rotation))
        publisher.deviceAdded(descriptor, model: model, vendor: vendor, product: product)
    }

    /// Takes a device out: its touches are cancelled (R9) before readers hear it is gone.
    func removeDevice(
        _ descriptor: DeviceDescriptor, model: TouchscreenModel, vendor: UInt16?, product: UInt16?, at time: Timestamp
    ) {
        engine.removeDevice(descriptor.id, at: time, into: &events)
        publishEvents()
        for screen in screens where screen.wake.device == descriptor.id { screen.reading?.cancel() }
        screens.removeAll { $0.wake.device == descriptor.id }
        rotations.removeAll { $0.id == descriptor.id }
        stagePanels.removeAll { $0.id == descriptor.id }
        stopRecordings(where: { $0.device == descriptor.id }, reason: .deviceRemoved)
        passthrough.detach(descriptor.id, logger: logger)
        counters.forget(descriptor.id)
        reportTouchMovesIfWanted()
        publisher.deviceRemoved(descriptor, model: model, vendor: vendor, product: product)
    }

    /// Reads `screen` on the server's worker now and every ``PanelWake/interval`` (the server's
    /// event loop keeps the time), never queueing a read behind one under way; nil without a server.
    private func read(_ screen: PanelWake.Reader) -> RepeatedTask? {
        guard let server else { return nil }
        let (worker, logger) = (server.worker, logger)
        return server.eventLoops.next().scheduleRepeatedTask(
            initialDelay: .zero, delay: .microseconds(PanelWake.interval)
        ) { _ in
            guard screen.claim() else { return }
            worker.submit { state in
                guard case .active = state else { return }
                screen.poll(logger: logger)
            }
        }
    }

    /// Grabs a live panel and mirrors its unclaimed touches (`passthrough: true`).
    func mirror(_ device: TouchDevice) {
        passthrough.attach(device, logger: logger)
        reportTouchMovesIfWanted()
    }

    // MARK: Publishing

    /// Adds the recognizer list to the batch when it changed (the configuration was loaded or
    /// reloaded, a client defined or went away), so that `hello` lists what runs.
    func publishRecognizers() {
        let current = engine.recognizerSummaries
        guard current != publishedRecognizers else { return }
        publishedRecognizers = current
        publisher.recognizersChanged(current)
    }

    /// The engine's events so far: to the mirrors first, then into the batch.
    func publishEvents() {
        if let fresh = server?.interest(newerThan: interest.version) {
            interest = fresh
            followInterest()
        }
        guard !events.isEmpty else { return }
        if !stagePanels.isEmpty { declarePanelEvents() }
        passthrough.forward(events, logger: logger)
        publisher.add(events, wanted: interest)
        events.removeAll(keepingCapacity: true)
    }

    /// What the stages before the arenas did, as each event's declaration says
    /// (``PanelEventDeclaration``): counted in all and on its panel, and the journal's line.
    private func declarePanelEvents() {
        for case .panel(let e) in events {
            guard let i = stagePanels.firstIndex(where: { $0.id == e.device }) else { continue }
            let declared = e.declared(deviceLabel: stagePanels[i].label)
            for counter in declared.counters {
                counters.counts[counter] &+= 1
                stagePanels[i].counts[counter] &+= 1
            }
            guard let journal = declared.journal else { continue }
            let level: Logger.Level =
                switch journal {
                case .debug: .debug
                case .info: .info
                case .notice: .notice
                case .warning: .warning
                }
            logger.log(level: level, "\(declared.sentence)", metadata: ["device": "\(stagePanels[i].label)"])
        }
    }

    /// Adds a publication of the daemon's own (a recording's) to the batch, after what the
    /// engine made so far.
    func publish(_ publication: Publication) {
        publisher.add(publication)
    }

    /// Hands `publish` the batch made since the last call. Returns the earliest arrival of the
    /// frames behind it (monotonic µs) when it handed on a batch after frames, else nil.
    @discardableResult
    func flush(_ publish: (inout [Publication]) -> Void) -> Int64? {
        let since = pendingSince
        pendingSince = 0
        return publisher.flush(publish) && since != 0 ? since : nil
    }

    /// The panels grabbed with a mirror now.
    func isMirrored(_ device: DeviceID) -> Bool { passthrough.mirrors(device) }

    /// A panel's rotation (degrees clockwise), whether it is idle, and its screen as last read
    /// (nil: not read, the panel has no `screen`).
    func panelState(_ device: DeviceID) -> (rotation: Int, idle: Bool, screenOn: Bool?) {
        let gate = engine.panelState(device)
        let screenOn = screens.contains { $0.wake.device == device } ? !(gate?.screenOff ?? false) : nil
        return (rotations.first { $0.id == device }?.rotation.rawValue ?? 0, gate?.idle ?? false, screenOn)
    }

    /// The event node of the panel's mirror while it is grabbed.
    func mirrorNode(_ device: DeviceID) -> String? { passthrough.mirrorNode(device) }

    /// The engine makes what some reader takes only: explanations while one takes them, the
    /// gestures of the kinds one takes, the views' moves as ``reportTouchMovesIfWanted()`` says.
    private func followInterest() {
        engine.explains = interest.takesExplanations
        let kinds = interest.kindsTaken
        if engine.reportedKinds != kinds { engine.reportedKinds = kinds }
        reportTouchMovesIfWanted()
    }

    /// The engine makes the views' `moved` and `stationary` events — most of a frame's events —
    /// only while someone takes them: a reader of raw touches, or a mirrored panel.
    private func reportTouchMovesIfWanted() {
        let wanted = interest.takesTouches || passthrough.isActive
        if engine.reportsTouchMoves != wanted { engine.reportsTouchMoves = wanted }
    }
}
