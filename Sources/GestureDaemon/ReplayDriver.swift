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
///
/// A class: the frame source asks it for its clock on every loop iteration, and a struct this
/// size (the recording, its reader, the frames read ahead) held in a class is copied whole for a
/// non-mutating call the optimizer cannot see into.
final class ReplayDriver {
    let recording: Recording
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
    /// Frames handed out in this pass.
    private var framesThisPass = 0
    /// The replay has ended (its last pass is done, or it stopped): no more frames, no clock.
    private(set) var isOver = false

    /// The pause between two passes, in engine time (and in wall time at speed 1).
    static let passGap: Int64 = 500_000
    /// The latest engine time a replayed frame may have: 2^62 µs (146 000 years), far below
    /// where the engine's deadline arithmetic (a time plus at most a minute) could overflow. The
    /// parser accepts recordings whose clock reads up to 10^12 s, and each pass of a loop starts
    /// after the last one, so a loop over such a recording runs out of clock after some hundreds
    /// of passes: it stops there, with ``ReplayError/clockExhausted(passes:)``.
    static let maxEngineTime: Int64 = 1 << 62
    /// Frames handed out per loop iteration when not paced, so clients and signals are served.
    static let unpacedBatch = 64

    init(
        recording: Recording, label: String, settings: DeviceSettings, speed: Double?, loops: Bool, id: DeviceID
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

    /// The engine time of this pass's last event read: the pass's end, once
    /// ``isPassFinished`` (events may follow the last frame).
    var passEndTime: Timestamp {
        Timestamp(microseconds: min(Self.adding(source.lastTime?.microseconds ?? 0, offset), Self.maxEngineTime))
    }

    /// Whether this pass has delivered all its frames.
    var isPassFinished: Bool { exhausted && nextFrame == frames.count }

    /// Appends the frames due by `wallNow` (paced), or the next batch (not paced), to `due`, with
    /// engine times. Copied touch by touch into `due`'s own storage: a frame that shared its
    /// touches with the read-ahead buffer would make the next read allocate them again.
    func takeDue(wallNow: Int64, into due: inout TouchFrameBuffer) throws(ReplayError) {
        var taken = 0
        while try fill(wallNow: wallNow) {
            let frame = frames[nextFrame]
            let time = Self.adding(frame.time.microseconds, offset)
            guard time <= Self.maxEngineTime else { throw .clockExhausted(passes: passes) }
            if let now = engineNow(wallNow: wallNow) {
                if time > now.microseconds { return }
            } else if taken == Self.unpacedBatch {
                return
            }
            var shifted = frame
            shifted.time = Timestamp(microseconds: time)
            due.append(shifted)
            nextFrame += 1
            taken += 1
            framesThisPass += 1
        }
    }

    /// Reads ahead until a frame is waiting; false when the pass has none left.
    private func fill(wallNow: Int64) throws(ReplayError) -> Bool {
        while nextFrame == frames.count {
            guard !exhausted else { return false }
            frames.removeAll()
            nextFrame = 0
            do {
                exhausted = !(try source.next(into: &frames))
            } catch {
                throw .recording(error)
            }
            if exhausted { source.finish(into: &frames) }
            if passRecordingStart == nil, let first = frames.first {
                passRecordingStart = first.time.microseconds
                passWallStart = wallNow
                offset = (nextPassStart ?? first.time.microseconds) - first.time.microseconds
            }
        }
        return true
    }

    /// The engine time that corresponds to `wallNow`, when paced and started (at most
    /// ``maxEngineTime``, whatever the speed).
    func engineNow(wallNow: Int64) -> Timestamp? {
        guard let speed, let start = passRecordingStart else { return nil }
        let elapsed = Self.clamped(Double(wallNow - passWallStart) * speed)
        return Timestamp(microseconds: min(Self.adding(Self.adding(start, offset), elapsed), Self.maxEngineTime))
    }

    /// The wall time at which the engine reaches `time`, when paced and started (saturated: a
    /// time centuries away at a tiny speed is `Int64.max`, never a trap).
    func wallTime(ofEngineTime time: Timestamp) -> Int64? {
        guard let speed, let start = passRecordingStart else { return nil }
        let engineElapsed = Self.subtracting(Self.subtracting(time.microseconds, offset), start)
        return Self.adding(passWallStart, Self.clamped((Double(engineElapsed) / speed).rounded(.up)))
    }

    /// `a + b`, held at the ends of Int64 instead of trapping.
    static func adding(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return sum }
        return b > 0 ? Int64.max : Int64.min
    }

    /// `a - b`, held at the ends of Int64 instead of trapping.
    static func subtracting(_ a: Int64, _ b: Int64) -> Int64 {
        let (difference, overflow) = a.subtractingReportingOverflow(b)
        guard overflow else { return difference }
        return b < 0 ? Int64.max : Int64.min
    }

    /// A Double as Int64, held at the ends (and 0 for NaN) instead of trapping.
    static func clamped(_ value: Double) -> Int64 {
        if value.isNaN { return 0 }
        if value >= 0x1p63 { return Int64.max }
        if value <= -0x1p63 { return Int64.min }
        return Int64(value)
    }

    /// The wall time the next frame is due, when paced (nil when nothing is read ahead).
    func nextFrameWallTime() -> Int64? {
        guard nextFrame < frames.count else { return nil }
        return wallTime(ofEngineTime: Timestamp(microseconds: Self.adding(frames[nextFrame].time.microseconds, offset)))
    }

    /// Ends a pass whose frames are delivered and whose engine timers have run out. With
    /// `loops`, the next pass plays as device `id`, starting a gap after `engineTime`; returns
    /// false when the replay is over. A loop over a recording that gave no touch frame stops
    /// (unpaced, it would add and remove a device as fast as the loop turns, and flood every
    /// client with `device` messages).
    func finishPass(engineTime: Timestamp, wallNow: Int64, nextID id: DeviceID) throws(ReplayError) -> Bool {
        passes += 1
        guard loops else { return false }
        guard framesThisPass > 0 else { throw .nothingToLoop }
        framesThisPass = 0
        do {
            source = try ReplaySource(recording: recording, id: id, label: label, settings: settings)
        } catch {
            throw .notReplayable(error)
        }
        frames.removeAll()
        nextFrame = 0
        exhausted = false
        nextPassStart = Self.adding(engineTime.microseconds, Self.passGap)
        passRecordingStart = nil
        pausedUntil = speed.map { Self.adding(wallNow, Self.clamped(Double(Self.passGap) / $0)) }
        return true
    }

    /// Starts or stops keeping the events this pass reads, for a recording of the replay device.
    func capture(_ on: Bool) { source.capture(on) }

    var isCapturing: Bool { source.isCapturing }

    /// The events read since the last call, on the engine's clock (the pass's offset added).
    func takeCaptured() -> [InputEvent] {
        var events = source.takeCaptured()
        guard offset != 0 else { return events }
        for i in events.indices { events[i].time = Timestamp(microseconds: Self.adding(events[i].time.microseconds, offset)) }
        return events
    }

    /// Ends the replay for good.
    func end() {
        isOver = true
        pausedUntil = nil
    }

    /// Lifts the pause between passes once its time has come.
    func resume(wallNow: Int64) {
        if let until = pausedUntil, wallNow >= until { pausedUntil = nil }
    }
}

/// Why a replay stopped early.
enum ReplayError: Error, CustomStringConvertible {
    /// The recording has an error the parser found only when reading on.
    case recording(LineError)
    /// The next pass would run the engine's clock past ``ReplayDriver/maxEngineTime``.
    case clockExhausted(passes: Int)
    /// A pass gave no touch frame: nothing to loop.
    case nothingToLoop
    /// The recording no longer makes a replay device (not expected: the first pass made one).
    case notReplayable(SkipReason)

    var description: String {
        switch self {
        case .recording(let error): "the recording is broken: \(error)"
        case .clockExhausted(let passes):
            "after \(passes) passes the recording's clock would run past 2^62 µs (146 000 years); no more passes"
        case .nothingToLoop: "a pass gave no touch frame; nothing to loop"
        case .notReplayable(let reason): "\(reason)"
        }
    }
}
