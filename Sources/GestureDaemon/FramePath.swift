import GestureEngine
import GestureProtocol
import GestureServer
import Logging
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
    /// The readers' interest when newer than a version (the server's, for the daemon); nil: it
    /// never changes (`replay`).
    private let latestInterest: ((UInt64) -> Interest?)?
    /// What `hello` lists, as last published.
    private var publishedRecognizers: [RecognizerSummary]?
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

    init(
        engine: GestureEngine, interest: Interest,
        latestInterest: ((UInt64) -> Interest?)? = nil, logger: Logger
    ) {
        self.engine = engine
        self.interest = interest
        self.latestInterest = latestInterest
        self.logger = logger
        self.engine.explains = interest.takesExplanations
        reportTouchMovesIfWanted()
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

    /// The clients connected, for the begin gate `when.client-connected` (R3).
    var connectedClients: Int {
        get { engine.connectedClients }
        set { engine.connectedClients = newValue }
    }

    // MARK: Frames

    /// Runs `frames` through the engine and empties the buffer.
    func process(_ frames: inout TouchFrameBuffer) {
        for frame in frames {
            count(frame)
            engine.process(frame, into: &events)
        }
        frames.removeAll()
        publishEvents()
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

    /// A device the engine now knows: later events name it, readers get `device` `added`.
    func addDevice(_ descriptor: DeviceDescriptor, model: TouchscreenModel, vendor: UInt16?, product: UInt16?) {
        engine.addDevice(descriptor)
        publisher.deviceAdded(descriptor, model: model, vendor: vendor, product: product)
    }

    /// Takes a device out: its touches are cancelled (R9) before readers hear it is gone.
    func removeDevice(
        _ descriptor: DeviceDescriptor, model: TouchscreenModel, vendor: UInt16?, product: UInt16?, at time: Timestamp
    ) {
        engine.removeDevice(descriptor.id, at: time, into: &events)
        publishEvents()
        passthrough.detach(descriptor.id, logger: logger)
        counters.forget(descriptor.id)
        reportTouchMovesIfWanted()
        publisher.deviceRemoved(descriptor, model: model, vendor: vendor, product: product)
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
        if let latestInterest, let fresh = latestInterest(interest.version) {
            interest = fresh
            // The engine explains only while a reader takes explanations.
            engine.explains = interest.takesExplanations
            reportTouchMovesIfWanted()
        }
        guard !events.isEmpty else { return }
        passthrough.forward(events, logger: logger)
        publisher.add(events, wanted: interest)
        events.removeAll(keepingCapacity: true)
    }

    /// Hands `publish` the batch made since the last call. Returns the earliest arrival of the
    /// frames behind it (monotonic µs) when it handed on a batch after frames, else nil.
    @discardableResult
    func flush(_ publish: ([Publication]) -> Void) -> Int64? {
        let since = pendingSince
        pendingSince = 0
        return publisher.flush(publish) && since != 0 ? since : nil
    }

    /// Frames written to the passthrough mirrors so far.
    var mirrorFrames: UInt64 { passthrough.framesWritten }

    /// The panels grabbed with a mirror now.
    func isMirrored(_ device: DeviceID) -> Bool { passthrough.mirrors(device) }

    /// The event node of the panel's mirror while it is grabbed.
    func mirrorNode(_ device: DeviceID) -> String? { passthrough.mirrorNode(device) }

    /// The engine makes the views' `moved` and `stationary` events — most of a frame's events —
    /// only while someone takes them: a reader of raw touches, or a mirrored panel.
    private func reportTouchMovesIfWanted() {
        let wanted = interest.takesTouches || passthrough.isActive
        if engine.reportsTouchMoves != wanted { engine.reportsTouchMoves = wanted }
    }
}
