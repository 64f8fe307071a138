import GestureEngine
import GestureProtocol
import GestureServer
import Logging
import TouchInput

/// `gestured replay`: recordings through the engine with no daemon, no socket and no clock —
/// one `gesture` message per line (the socket's schema), `touch` messages with `touches`, and
/// `explain` messages in time order with them with `explain` (why recognizers failed, waited or
/// were blocked). Deterministic: the same files and configuration give the same bytes.
///
/// The daemon's own frame path: each file is played by a ``RecordingFrameSource`` into a
/// ``FramePath``, as `gestured run --replay FILE --speed max` plays it, on a virtual clock (no
/// pacing, so the clock never moves). Each file is its own device (labelled with the file's
/// name), played in order on its own clock; after each file the touches it left down are
/// cancelled and the timers it started run out, so a tap at the very end is still reported.
public struct OfflineReplay {
    /// A recording and the label its device gets.
    public struct Input: Sendable {
        public var label: String
        public var recording: Recording
        public init(label: String, recording: Recording) {
            self.label = label
            self.recording = recording
        }

        public init(label: String, recording: EvemuRecording) {
            self.init(label: label, recording: Recording(recording))
        }
    }

    /// Why a recording cannot be replayed.
    public struct Failure: Error, CustomStringConvertible {
        public var label: String
        public var message: String
        public var description: String { "\(label): \(message)" }
    }

    /// Internal for the tests, which read what it counted.
    let path: FramePath
    private let rules: [DeviceRule]
    private var nextDevice: UInt32 = 1
    /// The `seq` of the last message handed on.
    private var lastSeq: UInt64 = 0

    public init(
        configuration: DaemonConfiguration, includeTouches: Bool, includeExplanations: Bool = false
    ) throws(SpecError) {
        path = FramePath(
            engine: try GestureEngine(configuration: configuration.engineConfiguration),
            interest: .replay(touches: includeTouches, explanations: includeExplanations),
            logger: Logger(label: "gestured.replay", factory: { _ in SwiftLogNoOpLogHandler() }))
        rules = configuration.deviceRules
    }

    /// Plays `input`, handing each output line (with its newline) to `write`, and each frame and
    /// message on the way to `observe` and `inspect` (for pictures); what the recording holds that
    /// no kernel would have sent goes to `note`.
    public mutating func play(
        _ input: Input, observe: @escaping (DeviceDescriptor, TouchFrame) -> Void = { _, _ in },
        inspect: (ServerMessage) -> Void = { _ in }, note: (String) -> Void = { _ in }, write: ([UInt8]) -> Void
    ) throws(Failure) {
        var encoder = LineEncoder()
        try play(input, observe: observe, note: note) { (message, seq) throws(Failure) in
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
        _ input: Input, observe: @escaping (DeviceDescriptor, TouchFrame) -> Void = { _, _ in },
        note: (String) -> Void = { _ in }, deliver: (ServerMessage, UInt64) throws(Failure) -> Void
    ) throws(Failure) {
        let id = DeviceID(nextDevice)
        nextDevice += 1
        let recording: RecordingFrameSource
        do {
            let identity = DeviceIdentity(name: input.recording.description.name, id: input.recording.description.id)
            recording = RecordingFrameSource(
                try ReplayDriver(
                    recording: input.recording, label: input.label, settings: rules.settings(for: identity),
                    speed: nil, loops: false, id: id),
                firstID: id, observe: observe)
        } catch {
            throw Failure(label: input.label, message: "not replayed: \(error)")
        }
        _ = recording.start(path)
        // The virtual clock: unpaced, the recording needs the loop again at once until it is over.
        let wallNow: Int64 = 0
        while true {
            recording.tick(path, wallNow: wallNow)
            try emit(deliver)
            if let failure = recording.failure {
                let message =
                    switch failure {
                    case .recording(let error): "\(error)"
                    default: "\(failure)"
                    }
                throw Failure(label: input.label, message: message)
            }
            guard recording.nextWakeUp(path, wallNow: wallNow) != nil else {
                for text in recording.notes { note(text) }
                return
            }
        }
    }

    /// Hands on what the frame path published: the messages a reader of the wire gets (the
    /// device and recognizer lists are the socket's business).
    private mutating func emit(_ deliver: (ServerMessage, UInt64) throws(Failure) -> Void) throws(Failure) {
        var batch: [Publication] = []
        path.flush { batch = $0 }
        for publication in batch {
            switch publication {
            case .gesture(let gesture, _, _, _):
                lastSeq = gesture.seq
                try deliver(.gesture(gesture), lastSeq)
            case .touch(let touch, _, _, _):
                lastSeq = touch.seq
                try deliver(.touch(touch), lastSeq)
            case .explain(let explanation, _, _, _): try deliver(.explain(explanation), lastSeq)
            case .announcement(let message): try deliver(message, lastSeq)
            case .contact(let contact, _): try deliver(.contact(contact), lastSeq)
            // Nothing records an offline replay (no connection asks).
            case .device, .recognizers, .recording, .raw: continue
            }
        }
    }
}
