import GestureEngine
import GestureProtocol
import TouchInput

/// `gestured replay`: recordings through the engine with no daemon, no socket and no clock —
/// one `gesture` message per line (the socket's schema), and `touch` messages with `touches`.
/// Deterministic: the same files and configuration give the same bytes.
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
    private let includeTouches: Bool
    private var encoder = LineEncoder()
    private var seq: UInt64 = 0
    private var nextDevice: UInt32 = 1

    public init(configuration: DaemonConfiguration, includeTouches: Bool) throws(SpecError) {
        engine = try GestureEngine(configuration: configuration.engineConfiguration)
        rules = configuration.deviceRules
        self.includeTouches = includeTouches
    }

    /// Plays `input`, handing each output line (with its newline) to `write`.
    public mutating func play(_ input: Input, write: ([UInt8]) -> Void) throws(Failure) {
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
            for frame in frames { engine.process(frame, into: &events) }
            frames.removeAll()
            try emit(&events, device: source.descriptor, label: input.label, write: write)
        }
        // Run the timers the recording started out (a last tap waits for its double tap).
        var now = source.lastTime ?? Timestamp(microseconds: 0)
        while let deadline = engine.nextDeadline {
            now = max(now, deadline)
            engine.advance(to: now, into: &events)
        }
        engine.removeDevice(id, at: now, into: &events)
        try emit(&events, device: source.descriptor, label: input.label, write: write)
    }

    private mutating func emit(
        _ events: inout [EngineEvent], device: DeviceDescriptor, label: String, write: ([UInt8]) -> Void
    ) throws(Failure) {
        for event in events {
            let message: ServerMessage
            switch event {
            case .gesture(let g):
                seq += 1
                message = .gesture(GestureMessage(g, deviceLabel: device.label, seq: seq))
            case .touch(let t):
                guard includeTouches else { continue }
                seq += 1
                message = .touch(TouchMessage(t, device: device, seq: seq))
            }
            do {
                write(try encoder.encode(message))
            } catch {
                throw Failure(label: label, message: "cannot encode \(message.type) #\(seq): \(error)")
            }
        }
        events.removeAll(keepingCapacity: true)
    }
}
