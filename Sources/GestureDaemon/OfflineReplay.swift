import GestureEngine
import GestureProtocol
import GestureServer
import TouchInput

/// `gestured replay`: recordings through the engine with no daemon, no socket and no clock —
/// one `gesture` message per line (the socket's schema), `touch` messages with `touches`, and
/// `explain` messages in time order with them with `explain` (why recognizers failed, waited or
/// were blocked). Deterministic: the same files and configuration give the same bytes.
///
/// Each file is its own device (labelled with the file's name), played in order on its own
/// clock; after each file the touches it left down are cancelled and the timers it started run
/// out, so a tap at the very end is still reported.
public struct OfflineReplay {
    /// A recording and the label its device gets.
    public struct Input: Sendable {
        public var label: String
        public var recording: EvemuRecording
        public init(label: String, recording: EvemuRecording) {
            self.label = label
            self.recording = recording
        }
    }

    /// Why a recording cannot be replayed.
    public struct Failure: Error, CustomStringConvertible {
        public var label: String
        public var message: String
        public var description: String { "\(label): \(message)" }
    }

    private var engine: GestureEngine
    private let rules: [DeviceRule]
    /// What the output takes: every gesture, and touches and explanations as asked.
    private let interest: Interest
    private var mapping = WireMapping()
    private var nextDevice: UInt32 = 1

    public init(
        configuration: DaemonConfiguration, includeTouches: Bool, includeExplanations: Bool = false
    ) throws(SpecError) {
        engine = try GestureEngine(configuration: configuration.engineConfiguration)
        engine.explains = includeExplanations
        rules = configuration.deviceRules
        interest = .replay(touches: includeTouches, explanations: includeExplanations)
    }

    /// Plays `input`, handing each output line (with its newline) to `write`, and each frame and
    /// message on the way to `observe` and `inspect` (for pictures).
    public mutating func play(
        _ input: Input, observe: (DeviceDescriptor, TouchFrame) -> Void = { _, _ in },
        inspect: (ServerMessage) -> Void = { _ in }, write: ([UInt8]) -> Void
    ) throws(Failure) {
        var encoder = LineEncoder()
        try play(input, observe: observe) { (message, seq) throws(Failure) in
            inspect(message)
            do {
                write(try encoder.encode(message))
            } catch {
                throw Failure(label: input.label, message: "cannot encode \(message.type) #\(seq): \(error)")
            }
        }
    }

    /// Plays `input`, handing each message to `deliver` in order (with the last `seq` given) and
    /// each frame the engine processes, with its device, to `observe` (for pictures).
    public mutating func play(
        _ input: Input, observe: (DeviceDescriptor, TouchFrame) -> Void = { _, _ in },
        deliver: (ServerMessage, UInt64) throws(Failure) -> Void
    ) throws(Failure) {
        let id = DeviceID(nextDevice)
        nextDevice += 1
        var source: ReplaySource
        do {
            let identity = DeviceIdentity(name: input.recording.description.name, id: input.recording.description.id)
            source = try ReplaySource(
                recording: input.recording, id: id, label: input.label, settings: rules.settings(for: identity))
        } catch {
            throw Failure(label: input.label, message: "not replayed: \(error)")
        }
        engine.addDevice(source.descriptor)
        var frames = TouchFrameBuffer()
        var events: [EngineEvent] = []
        var more = true
        while more {
            do {
                more = try source.read(events: 4096, into: &frames)
            } catch {
                throw Failure(label: input.label, message: "\(error)")
            }
            if !more { source.finish(into: &frames) }
            for frame in frames {
                observe(source.descriptor, frame)
                engine.process(frame, into: &events)
            }
            frames.removeAll()
            try emit(&events, device: source.descriptor, deliver: deliver)
        }
        // Run the timers the recording started out (a last tap waits for its double tap).
        var now = source.lastTime ?? Timestamp(microseconds: 0)
        while let deadline = engine.nextDeadline {
            now = max(now, deadline)
            engine.advance(to: now, into: &events)
        }
        engine.removeDevice(id, at: now, into: &events)
        try emit(&events, device: source.descriptor, deliver: deliver)
    }

    private mutating func emit(
        _ events: inout [EngineEvent], device: DeviceDescriptor,
        deliver: (ServerMessage, UInt64) throws(Failure) -> Void
    ) throws(Failure) {
        for event in events {
            guard let message = mapping.publication(of: event, device: device, for: interest)?.message else { continue }
            try deliver(message, mapping.seq)
        }
        events.removeAll(keepingCapacity: true)
    }
}
