import GestureEngine
import TouchInput

/// Plays a recording into the running daemon (`gestured run --replay`), in place of live
/// devices: paced against the monotonic clock at `speed` times real time, or as fast as the
/// engine goes (`speed` nil), once or forever (`loops`).
///
/// The engine runs on the recording's own clock (plus an offset that keeps it increasing across
/// passes), so the gestures are the same whatever the speed; only when they are published
/// changes. Each pass is a fresh replay device: to clients a loop looks like the device being
/// unplugged and plugged in again, and touch ids are never reused.
struct ReplayDriver {
    let recording: EvemuRecording
    let label: String
    let settings: DeviceSettings
    /// Engine microseconds per wall microsecond; nil: no pacing.
    let speed: Double?
    let loops: Bool

    private(set) var source: ReplaySource
    private var frames = TouchFrameBuffer()
    private var nextFrame = 0
    private var exhausted = false
    /// Added to recording times to get engine times (0 in the first pass).
    private var offset: Int64 = 0
    /// Where the next pass's first frame lands in engine time (set between passes).
    private var nextPassStart: Int64?
    /// The recording time of this pass's first frame, and the wall time it was played at.
    private var passRecordingStart: Int64?
    private var passWallStart: Int64 = 0
    /// Wall time before which the next pass does not start.
    private(set) var pausedUntil: Int64?
    /// Passes completed.
    private(set) var passes = 0

    /// The pause between two passes, in engine time (and in wall time at speed 1).
    static let passGap: Int64 = 500_000
    /// Frames handed out per loop iteration when not paced, so clients and signals are served.
    static let unpacedBatch = 64

    init(
        recording: EvemuRecording, label: String, settings: DeviceSettings, speed: Double?, loops: Bool, id: DeviceID
    ) throws(SkipReason) {
        self.recording = recording
        self.label = label
        self.settings = settings
        self.speed = speed
        self.loops = loops
        source = try ReplaySource(recording: recording, id: id, label: label, settings: settings)
    }

    var descriptor: DeviceDescriptor { source.descriptor }

    /// Events replayed in this pass.
    var eventCount: Int { source.eventCount }

    /// Whether this pass has delivered all its frames.
    var isPassFinished: Bool { exhausted && nextFrame == frames.count }

    /// Appends the frames due by `wallNow` (paced), or the next batch (not paced), to `due`, with
    /// engine times.
    mutating func takeDue(wallNow: Int64, into due: inout [TouchFrame]) throws(EvemuError) {
        var taken = 0
        while try fill(wallNow: wallNow) {
            let frame = frames[nextFrame]
            if let now = engineNow(wallNow: wallNow) {
                if frame.time.microseconds + offset > now.microseconds { return }
            } else if taken == Self.unpacedBatch {
                return
            }
            var shifted = frame
            shifted.time = Timestamp(microseconds: frame.time.microseconds + offset)
            due.append(shifted)
            nextFrame += 1
            taken += 1
        }
    }

    /// Reads ahead until a frame is waiting; false when the pass has none left.
    private mutating func fill(wallNow: Int64) throws(EvemuError) -> Bool {
        while nextFrame == frames.count {
            guard !exhausted else { return false }
            frames.removeAll()
            nextFrame = 0
            exhausted = !(try source.next(into: &frames))
            if exhausted { source.finish(into: &frames) }
            if passRecordingStart == nil, let first = frames.first {
                passRecordingStart = first.time.microseconds
                passWallStart = wallNow
                offset = (nextPassStart ?? first.time.microseconds) - first.time.microseconds
            }
        }
        return true
    }

    /// The engine time that corresponds to `wallNow`, when paced and started.
    func engineNow(wallNow: Int64) -> Timestamp? {
        guard let speed, let start = passRecordingStart else { return nil }
        return Timestamp(microseconds: start + offset + Int64(Double(wallNow - passWallStart) * speed))
    }

    /// The wall time at which the engine reaches `time`, when paced and started.
    func wallTime(ofEngineTime time: Timestamp) -> Int64? {
        guard let speed, let start = passRecordingStart else { return nil }
        return passWallStart + Int64((Double(time.microseconds - offset - start) / speed).rounded(.up))
    }

    /// The wall time the next frame is due, when paced (nil when nothing is read ahead).
    func nextFrameWallTime() -> Int64? {
        guard nextFrame < frames.count else { return nil }
        return wallTime(ofEngineTime: Timestamp(microseconds: frames[nextFrame].time.microseconds + offset))
    }

    /// Ends a pass whose frames are delivered and whose engine timers have run out. With
    /// `loops`, the next pass plays as device `id`, starting a gap after `engineTime`; returns
    /// false when the replay is over.
    mutating func finishPass(engineTime: Timestamp, wallNow: Int64, nextID id: DeviceID) throws(SkipReason) -> Bool {
        passes += 1
        guard loops else { return false }
        source = try ReplaySource(recording: recording, id: id, label: label, settings: settings)
        frames.removeAll()
        nextFrame = 0
        exhausted = false
        nextPassStart = engineTime.microseconds + Self.passGap
        passRecordingStart = nil
        pausedUntil = speed.map { wallNow + Int64(Double(Self.passGap) / $0) }
        return true
    }

    /// Lifts the pause between passes once its time has come.
    mutating func resume(wallNow: Int64) {
        if let until = pausedUntil, wallNow >= until { pausedUntil = nil }
    }
}
