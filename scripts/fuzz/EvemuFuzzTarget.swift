// libFuzzer entry point for the evemu parser and the frame assembler (scripts/fuzz-evemu.sh).
// Compiled together with TouchInput's pure sources into one module, so it sees internal API.
import EvdevValues
import TouchValues

/// Parses `data` as an evemu file; when it parses and is a touchscreen, replays it and checks
/// that every touch that began ends or is cancelled. Any violation traps, which libFuzzer reports.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemu(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lines = bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    do {
        let recording = try EvemuRecording(bytes: bytes)
        guard var replay = try? ReplaySource(recording: Recording(recording), id: DeviceID(1), label: "fuzz") else {
            _ = try recording.allEvents()
            return 0
        }
        var frames = TouchFrameBuffer()
        var live: Set<TouchID> = []
        func check(_ frames: TouchFrameBuffer) {
            for frame in frames {
                var seen = 0
                for touch in frame.touches {
                    switch touch.phase {
                    case .began: precondition(live.insert(touch.id).inserted, "touch began twice")
                    case .moved, .stationary: precondition(live.contains(touch.id), "unknown touch moved")
                    case .ended, .cancelled: precondition(live.remove(touch.id) != nil, "unknown touch ended")
                    }
                    if touch.phase.isLive { seen += 1 }
                    precondition((0...1).contains(touch.position.x) && (0...1).contains(touch.position.y))
                }
                precondition(seen == live.count, "a frame omits a live touch")
            }
        }
        while try replay.read(events: 256, into: &frames) {
            check(frames)
            frames.removeAll()
        }
        check(frames)
        frames.removeAll()
        replay.finish(into: &frames)
        check(frames)
        precondition(live.isEmpty, "a touch never ended")
    } catch {
        precondition((1...lines).contains(error.line) && !error.message.isEmpty, "error without a valid line")
    }
    return 0
}
