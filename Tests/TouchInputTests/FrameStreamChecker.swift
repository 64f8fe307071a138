import TouchValues
import TouchInput

/// Checks the frame-stream contract of docs/INPUT.md on any sequence of frames: touch ids are
/// never reused, every touch that began ends or is cancelled, each frame lists every live touch,
/// times never go backwards.
struct FrameStreamChecker {
    private(set) var live: Set<TouchID> = []
    private(set) var seen: Set<TouchID> = []
    private(set) var began = 0
    private(set) var ended = 0
    private(set) var cancelled = 0
    private(set) var frames = 0
    private(set) var problems: [String] = []
    private var lastTime: Timestamp?

    mutating func check(_ frame: TouchFrame) {
        frames += 1
        if let last = lastTime, frame.time < last { problem("time went backwards: \(frame.time) < \(last)") }
        lastTime = frame.time
        var inFrame: Set<TouchID> = []
        for touch in frame.touches {
            if !inFrame.insert(touch.id).inserted { problem("\(touch.id) twice in one frame") }
            switch touch.phase {
            case .began:
                if seen.contains(touch.id) { problem("\(touch.id) began twice (id reused)") }
                seen.insert(touch.id)
                live.insert(touch.id)
                began += 1
            case .moved, .stationary:
                if !live.contains(touch.id) { problem("\(touch.id) \(touch.phase) but not live") }
            case .ended, .cancelled:
                if live.remove(touch.id) == nil { problem("\(touch.id) \(touch.phase) but not live") }
                if touch.phase == .ended { ended += 1 } else { cancelled += 1 }
            }
            let p = touch.position
            if !(0...1).contains(p.x) || !(0...1).contains(p.y) { problem("\(touch.id) outside the surface: \(p)") }
        }
        let missing = live.subtracting(inFrame)
        if !missing.isEmpty { problem("frame at \(frame.time) omits live touches \(missing.sorted())") }
        if frame.touches.isEmpty { problem("empty frame at \(frame.time)") }
    }

    mutating func check(_ buffer: TouchFrameBuffer) {
        for frame in buffer { check(frame) }
    }

    /// Plays `replay` to its end (`batch` events at a time, then its closing cancellations) and
    /// checks every frame it produces.
    static func checking(_ replay: inout ReplaySource, batch: Int) throws(LineError) -> FrameStreamChecker {
        var frames = TouchFrameBuffer()
        var checker = FrameStreamChecker()
        var more = true
        while more {
            more = try replay.read(events: batch, into: &frames)
            if !more { replay.finish(into: &frames) }
            checker.check(frames)
            frames.removeAll()
        }
        return checker
    }

    private mutating func problem(_ text: String) {
        if problems.count < 20 { problems.append("frame \(frames): \(text)") }
    }
}
