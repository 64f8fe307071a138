import EvdevValues
import TouchValues

/// What a ``MirrorEncoder`` could not forward, for logs.
public struct MirrorDiagnostics: Hashable, Sendable {
    /// Touches that began while every slot of the mirror was taken (or, on a single-touch mirror,
    /// while its one contact was down); nothing of them is forwarded.
    public var droppedTouches = 0
    /// View events for a touch the mirror never saw begin (dropped ones, or touches that were
    /// already down when the mirror was made); ignored.
    public var untrackedEvents = 0
    /// Cancelled touches on a single-touch mirror, which can only lift them (the single-touch
    /// protocol has no cancel).
    public var cancelsSentAsLifts = 0

    public init() {}
}

/// Turns the engine's view events of one touchscreen (R8: what the views should see) into the
/// evdev events of its passthrough mirror device. Pure: no I/O, so host tests check it against
/// ``FrameAssembler`` (what a reader of the mirror sees).
///
/// - The mirror is a separate device with its own slots and tracking ids: a touch takes the first
///   free slot when it begins and frees it when it ends or is cancelled.
/// - Values are the panel's own (``Touch/raw``): position, touch major, pressure, tool type.
/// - Events of one time go into one evdev frame (one SYN_REPORT), except that a touch appearing
///   twice (it began and ended in one report) gets a frame per appearance. Held events released
///   later (delays-touches-began/ended) keep their order, each time its own frame.
/// - A cancelled touch is sent as libinput expects a palm: ABS_MT_TOOL_TYPE = MT_TOOL_PALM and a
///   SYN_REPORT (libinput sends TOUCH_CANCEL), then the lift (tracking id -1) and a SYN_REPORT
///   (libinput sends nothing more). The next touch in that slot is announced as a finger again
///   before its tracking id, because libinput reads the slot's tool type when the id arrives.
/// - Pointer emulation as the kernel's input-mt core does it: BTN_TOUCH while any contact is
///   down, ABS_X/ABS_Y (and ABS_PRESSURE) of the oldest contact.
public struct MirrorEncoder {
    /// How the mirror reports contacts.
    public enum Layout: Hashable, Sendable {
        /// Multitouch protocol B (also for protocol A panels, whose contacts mtdev already
        /// followed).
        case slots(count: Int)
        /// ABS_X/ABS_Y and a touch button: the one contact of a single-touch panel.
        case singleTouch(button: UInt16)
    }

    /// The kernel's limit for a uinput device name, including the terminating NUL.
    static let maximumNameBytes = 80
    /// Slots of the mirror of a protocol A panel (as many as the frame assembler starts with).
    public static let protocolASlots = 10
    /// The per-contact axes the mirror carries; the others (touch minor, widths, orientation,
    /// distance, blob id, tool x/y) are not followed by the frame assembler, so the mirror does
    /// not declare them rather than report values nobody measured.
    static let forwardedMultitouchAxes: Set<UInt16> = [
        EventCode.absMTSlot, EventCode.absMTPositionX, EventCode.absMTPositionY, EventCode.absMTTrackingID,
        EventCode.absMTTouchMajor, EventCode.absMTPressure, EventCode.absMTToolType,
    ]
    /// Non-multitouch axes the mirror carries: pointer emulation and single touch.
    static let forwardedAxes: Set<UInt16> = [EventCode.absX, EventCode.absY, EventCode.absPressure]

    /// The mirror device's description.
    public let description: DeviceCapabilities
    public let layout: Layout
    /// Axes of the panel the mirror leaves out (see ``forwardedMultitouchAxes``).
    public let omittedAxes: [UInt16]
    public private(set) var diagnostics = MirrorDiagnostics()

    private struct Contact {
        var touch: TouchID
        /// Order of landing, for pointer emulation (the oldest contact drives the pointer).
        var landing: UInt64
        var raw: RawContact
        var tool: Int32
    }

    private var contacts: [Contact?]
    /// The tool type last written to each slot (it outlives the contact: a palm stays until the
    /// next contact says otherwise).
    private var slotTools: [Int32]
    private var landings: UInt64 = 0
    private var nextTrackingID: Int32 = 0
    private let trackingIDMaximum: Int32
    private let hasTouchMajor: Bool
    private let hasPressure: Bool
    private let hasToolType: Bool
    private let hasTouchButton: Bool
    private let hasPointerAxes: Bool
    private let hasPointerPressure: Bool

    private var frameOpen = false
    private var frameTime = Timestamp(microseconds: 0)
    /// Slots with events in the open frame.
    private var frameSlots: [Int] = []
    private var pointerDown = false
    private var pointer: RawContact?

    /// An encoder for the mirror of a panel of `source`, whose contacts the frame assembler reads
    /// as `touchProtocol`.
    public init(source: DeviceCapabilities, touchProtocol: TouchProtocol) {
        var mirror = DeviceCapabilities(name: Self.mirrorName(of: source.name), id: source.id)
        mirror.properties = source.properties
        for code in source.codes[EventCode.evKey] ?? [] { mirror.addCode(EventCode.evKey, code) }
        var omitted: [UInt16] = []
        for (code, info) in source.absInfo.sorted(by: { $0.key < $1.key }) {
            let kept =
                switch touchProtocol {
                case .slots, .protocolA:
                    Self.forwardedMultitouchAxes.contains(code) || Self.forwardedAxes.contains(code)
                case .singleTouch:
                    Self.forwardedAxes.contains(code)
                }
            if kept { mirror.addAxis(code, info) } else { omitted.append(code) }
        }
        let slotCount: Int
        switch touchProtocol {
        case .slots(let count):
            slotCount = count
            layout = .slots(count: count)
        case .protocolA:
            slotCount = Self.protocolASlots
            layout = .slots(count: slotCount)
            mirror.addAxis(EventCode.absMTSlot, AbsInfo(minimum: 0, maximum: Int32(slotCount - 1)))
            mirror.addAxis(EventCode.absMTTrackingID, AbsInfo(minimum: 0, maximum: 65535))
        case .singleTouch(let button):
            slotCount = 1
            layout = .singleTouch(button: button)
        }
        if case .slots = layout {
            // The cancel needs the palm tool type: the mirror always has it, reaching MT_TOOL_PALM.
            var tool = mirror.absInfo[EventCode.absMTToolType] ?? AbsInfo(minimum: 0, maximum: EventCode.mtToolPalm)
            tool.maximum = max(tool.maximum, EventCode.mtToolPalm)
            mirror.addAxis(EventCode.absMTToolType, tool)
            // The slot count follows what the assembler reads, which may exceed the absinfo's.
            var slot = mirror.absInfo[EventCode.absMTSlot] ?? AbsInfo(minimum: 0, maximum: 0)
            slot.maximum = max(slot.maximum, Int32(slotCount - 1))
            mirror.addAxis(EventCode.absMTSlot, slot)
        }
        description = mirror
        omittedAxes = omitted
        contacts = Array(repeating: nil, count: slotCount)
        slotTools = Array(repeating: EventCode.mtToolFinger, count: slotCount)
        trackingIDMaximum = max(mirror.absInfo[EventCode.absMTTrackingID]?.maximum ?? 65535, 1)
        let single: Bool = if case .singleTouch = layout { true } else { false }
        hasTouchMajor = !single && mirror.hasAxis(EventCode.absMTTouchMajor)
        hasPressure = mirror.hasAxis(single ? EventCode.absPressure : EventCode.absMTPressure)
        hasToolType = !single
        hasTouchButton = mirror.has(EventCode.evKey, EventCode.btnTouch)
        hasPointerAxes = !single && mirror.hasAxis(EventCode.absX) && mirror.hasAxis(EventCode.absY)
        hasPointerPressure = !single && mirror.hasAxis(EventCode.absPressure)
        frameSlots.reserveCapacity(8)
    }

    /// `name` + ``MirrorMarks/nameSuffix``, the name shortened (on a character boundary) so the whole fits
    /// the kernel's 79 bytes.
    public static func mirrorName(of name: String) -> String {
        let room = maximumNameBytes - 1 - MirrorMarks.nameSuffix.utf8.count
        var kept = Substring(name)
        while kept.utf8.count > room { kept = kept.dropLast() }
        return kept + MirrorMarks.nameSuffix
    }

    // MARK: - Encoding

    /// Appends the events for one view event — the touch as the views see it, at the time of
    /// the frame it came from; a frame may stay open for more events of the same time until
    /// ``finish(into:)``.
    public mutating func encode(_ touch: Touch, at time: Timestamp, into events: inout [RawEvent]) {
        switch layout {
        case .slots: encodeSlot(touch, at: time, into: &events)
        case .singleTouch(let button): encodeSingle(touch, at: time, button: button, into: &events)
        }
    }

    /// Closes the open frame (pointer emulation and SYN_REPORT), if any: the end of a batch.
    public mutating func finish(into events: inout [RawEvent]) {
        if frameOpen { closeFrame(into: &events) }
    }

    private func slot(of id: TouchID) -> Int? {
        contacts.firstIndex { $0?.touch == id }
    }

    private static func toolValue(_ tool: ToolType) -> Int32 {
        switch tool {
        case .finger: EventCode.mtToolFinger
        case .pen: EventCode.mtToolPen
        case .palm: EventCode.mtToolPalm
        }
    }

    /// Starts a frame for an event of `slot` at `time`, closing the open one first if it is of
    /// another time or already has an event of this slot.
    private mutating func enter(_ slot: Int, at time: Timestamp, into events: inout [RawEvent]) {
        if frameOpen && (time != frameTime || frameSlots.contains(slot)) { closeFrame(into: &events) }
        if !frameOpen {
            frameOpen = true
            frameTime = time
        }
        frameSlots.append(slot)
    }

    private mutating func closeFrame(into events: inout [RawEvent]) {
        if case .slots = layout { emulatePointer(into: &events) }
        events.append(RawEvent(EventCode.evSyn, EventCode.synReport, 0))
        frameOpen = false
        frameSlots.removeAll(keepingCapacity: true)
    }

    private mutating func encodeSlot(_ touch: Touch, at time: Timestamp, into events: inout [RawEvent]) {
        switch touch.phase {
        case .began:
            guard slot(of: touch.id) == nil, let raw = touch.raw else {
                diagnostics.untrackedEvents += 1
                return
            }
            guard let slot = contacts.firstIndex(where: { $0 == nil }) else {
                diagnostics.droppedTouches += 1
                return
            }
            enter(slot, at: time, into: &events)
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTSlot, Int32(slot)))
            let tool = Self.toolValue(touch.tool)
            if slotTools[slot] != tool {
                events.append(RawEvent(EventCode.evAbs, EventCode.absMTToolType, tool))
                slotTools[slot] = tool
            }
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTTrackingID, nextTrackingID))
            nextTrackingID = nextTrackingID >= trackingIDMaximum ? 0 : nextTrackingID + 1
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTPositionX, raw.position.x))
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTPositionY, raw.position.y))
            if hasTouchMajor { events.append(RawEvent(EventCode.evAbs, EventCode.absMTTouchMajor, raw.touchMajor)) }
            if hasPressure { events.append(RawEvent(EventCode.evAbs, EventCode.absMTPressure, raw.pressure)) }
            landings += 1
            contacts[slot] = Contact(touch: touch.id, landing: landings, raw: raw, tool: tool)
        case .moved, .ended:
            guard let slot = slot(of: touch.id), let contact = contacts[slot] else {
                diagnostics.untrackedEvents += 1
                return
            }
            let raw = touch.raw ?? contact.raw
            let tool = Self.toolValue(touch.tool)
            let lifted = touch.phase == .ended
            let changed = raw != contact.raw || tool != contact.tool
            guard changed || lifted else { return }
            enter(slot, at: time, into: &events)
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTSlot, Int32(slot)))
            if tool != contact.tool {
                events.append(RawEvent(EventCode.evAbs, EventCode.absMTToolType, tool))
                slotTools[slot] = tool
            }
            let old = contact.raw
            if raw.position.x != old.position.x {
                events.append(RawEvent(EventCode.evAbs, EventCode.absMTPositionX, raw.position.x))
            }
            if raw.position.y != old.position.y {
                events.append(RawEvent(EventCode.evAbs, EventCode.absMTPositionY, raw.position.y))
            }
            if hasTouchMajor && raw.touchMajor != old.touchMajor {
                events.append(RawEvent(EventCode.evAbs, EventCode.absMTTouchMajor, raw.touchMajor))
            }
            if hasPressure && raw.pressure != old.pressure {
                events.append(RawEvent(EventCode.evAbs, EventCode.absMTPressure, raw.pressure))
            }
            if lifted {
                events.append(RawEvent(EventCode.evAbs, EventCode.absMTTrackingID, -1))
                contacts[slot] = nil
            } else {
                contacts[slot] = Contact(touch: touch.id, landing: contact.landing, raw: raw, tool: tool)
            }
        case .cancelled:
            guard let slot = slot(of: touch.id) else {
                diagnostics.untrackedEvents += 1
                return
            }
            enter(slot, at: time, into: &events)
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTSlot, Int32(slot)))
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTToolType, EventCode.mtToolPalm))
            slotTools[slot] = EventCode.mtToolPalm
            // The palm gets its own frame (entering the slot again closes it): the reader must see
            // the touch down as a palm before it sees the lift.
            enter(slot, at: time, into: &events)
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTSlot, Int32(slot)))
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTTrackingID, -1))
            contacts[slot] = nil
        case .stationary:
            return
        }
    }

    /// BTN_TOUCH, ABS_X/ABS_Y and ABS_PRESSURE from the oldest contact, when they change.
    private mutating func emulatePointer(into events: inout [RawEvent]) {
        var oldest: Contact?
        for case let contact? in contacts where contact.landing < (oldest?.landing ?? .max) { oldest = contact }
        let down = oldest != nil
        if down != pointerDown && hasTouchButton {
            events.append(RawEvent(EventCode.evKey, EventCode.btnTouch, down ? 1 : 0))
        }
        pointerDown = down
        guard let raw = oldest?.raw else { return }
        if hasPointerAxes {
            if pointer?.position.x != raw.position.x {
                events.append(RawEvent(EventCode.evAbs, EventCode.absX, raw.position.x))
            }
            if pointer?.position.y != raw.position.y {
                events.append(RawEvent(EventCode.evAbs, EventCode.absY, raw.position.y))
            }
        }
        if hasPointerPressure && pointer?.pressure != raw.pressure {
            events.append(RawEvent(EventCode.evAbs, EventCode.absPressure, raw.pressure))
        }
        pointer = raw
    }

    private mutating func encodeSingle(
        _ touch: Touch, at time: Timestamp, button: UInt16, into events: inout [RawEvent]
    ) {
        let current = contacts[0]
        switch touch.phase {
        case .began:
            guard let raw = touch.raw, current?.touch != touch.id else {
                diagnostics.untrackedEvents += 1
                return
            }
            guard current == nil else {
                diagnostics.droppedTouches += 1
                return
            }
            enter(0, at: time, into: &events)
            appendSingleValues(raw, changedFrom: pointer, into: &events)
            events.append(RawEvent(EventCode.evKey, button, 1))
            landings += 1
            contacts[0] = Contact(touch: touch.id, landing: landings, raw: raw, tool: Self.toolValue(touch.tool))
        case .moved, .ended, .cancelled:
            guard let contact = current, contact.touch == touch.id else {
                diagnostics.untrackedEvents += 1
                return
            }
            let raw = touch.raw ?? contact.raw
            let lifted = touch.phase != .moved
            guard raw != contact.raw || lifted else { return }
            enter(0, at: time, into: &events)
            appendSingleValues(raw, changedFrom: contact.raw, into: &events)
            if lifted {
                if touch.phase == .cancelled { diagnostics.cancelsSentAsLifts += 1 }
                events.append(RawEvent(EventCode.evKey, button, 0))
                contacts[0] = nil
            } else {
                contacts[0] = Contact(touch: touch.id, landing: contact.landing, raw: raw, tool: contact.tool)
            }
        case .stationary:
            return
        }
    }

    private mutating func appendSingleValues(
        _ raw: RawContact, changedFrom old: RawContact?, into events: inout [RawEvent]
    ) {
        if old?.position.x != raw.position.x {
            events.append(RawEvent(EventCode.evAbs, EventCode.absX, raw.position.x))
        }
        if old?.position.y != raw.position.y {
            events.append(RawEvent(EventCode.evAbs, EventCode.absY, raw.position.y))
        }
        if hasPressure && old?.pressure != raw.pressure {
            events.append(RawEvent(EventCode.evAbs, EventCode.absPressure, raw.pressure))
        }
        pointer = raw
    }
}
