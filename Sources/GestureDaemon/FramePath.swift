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

    /// The clients connected, for the begin gate `when.client-connected` (R3).
    var connectedClients: Int {
        get { engine.connectedClients }
        set { engine.connectedClients = newValue }
    }

    // MARK: Frames

    /// Runs `frames` through the engine and empties the buffer.
    func process(_ frames: inout TouchFrameBuffer) {
        for frame in frames { engine.process(frame, into: &events) }
        frames.removeAll()
        publishEvents()
    }

    /// Runs one frame through the engine (publish with ``advance(to:)`` or ``publishEvents()``).
    func process(_ frame: TouchFrame) {
        engine.process(frame, into: &events)
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

    /// Hands `publish` the batch made since the last call.
    func flush(_ publish: ([Publication]) -> Void) {
        publisher.flush(publish)
    }

    /// The engine makes the views' `moved` and `stationary` events — most of a frame's events —
    /// only while someone takes them: a reader of raw touches, or a mirrored panel.
    private func reportTouchMovesIfWanted() {
        let wanted = interest.takesTouches || passthrough.isActive
        if engine.reportsTouchMoves != wanted { engine.reportsTouchMoves = wanted }
    }
}
