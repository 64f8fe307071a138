import TouchValues

@testable import TouchInput
@testable import VirtualDevices

/// Builds event sequences for assembler tests: `e.slot(0); e.tid(5); e.x(100); e.report()`.
struct EventList {
    var events: [InputEvent] = []
    /// Current time in µs; `report(after:)` advances it.
    var time: Int64 = 1_000_000

    mutating func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(time: Timestamp(microseconds: time), type: type, code: code, value: value))
    }
    mutating func abs(_ code: UInt16, _ value: Int32) { add(EventCode.evAbs, code, value) }
    mutating func slot(_ v: Int32) { abs(EventCode.absMTSlot, v) }
    mutating func tid(_ v: Int32) { abs(EventCode.absMTTrackingID, v) }
    mutating func x(_ v: Int32) { abs(EventCode.absMTPositionX, v) }
    mutating func y(_ v: Int32) { abs(EventCode.absMTPositionY, v) }
    mutating func tool(_ v: Int32) { abs(EventCode.absMTToolType, v) }
    mutating func key(_ code: UInt16, _ v: Int32) { add(EventCode.evKey, code, v) }
    /// SYN_REPORT at the current time, then the clock moves on by `ms`.
    mutating func report(after ms: Int64 = 10) {
        add(EventCode.evSyn, EventCode.synReport, 0)
        time += ms * 1000
    }
    /// A contact landing in `slot` with tracking id `id` at (x, y).
    mutating func down(slot s: Int32, id: Int32, x px: Int32, y py: Int32) {
        slot(s)
        tid(id)
        x(px)
        y(py)
    }
}

/// Runs `events` through an assembler for `description` and returns the frames.
func assemble(
    _ events: [InputEvent], description: DeviceCapabilities = DeviceProfile.kiosk10.capabilities(),
    settings: DeviceSettings = DeviceSettings(), contactsKnown: Bool = true, states: [FrameAssembler.SlotState]? = nil
) throws -> (frames: [TouchFrame], assembler: FrameAssembler) {
    let model = try TouchscreenModel(description: description, settings: settings)
    var assembler = model.makeAssembler(device: DeviceID(7), contactsKnown: contactsKnown)
    if let states { assembler.synchronize(states) }
    var buffer = TouchFrameBuffer()
    for e in events { assembler.handle(e, into: &buffer) }
    return (Array(buffer), assembler)
}

extension TouchFrame {
    /// Phases by touch id, for compact assertions.
    var phases: [UInt32: TouchPhase] {
        Dictionary(uniqueKeysWithValues: touches.map { ($0.id.rawValue, $0.phase) })
    }
}

/// Whether two surface positions are equal within `tolerance`.
func near(_ a: SurfacePoint, _ b: SurfacePoint, _ tolerance: Double = 1e-9) -> Bool {
    Swift.abs(a.x - b.x) <= tolerance && Swift.abs(a.y - b.y) <= tolerance
}
