import EvdevValues
import TouchValues

/// One finger (or palm, or pen) of a simulated touch, in surface coordinates.
public struct SimulatedContact: Hashable, Sendable {
    /// Identifies the contact across frames (the script's finger, not a kernel tracking id).
    public var id: Int
    public var position: SurfacePoint
    /// 0…1 of the pressure axis, when the device has one.
    public var pressure: Double
    public var tool: ToolType

    public init(id: Int, position: SurfacePoint, pressure: Double = 0.5, tool: ToolType = .finger) {
        self.id = id
        self.position = position
        self.pressure = pressure
        self.tool = tool
    }
}

/// One raw event without a time (the kernel stamps events written to uinput).
public struct RawEvent: Hashable, Sendable {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        self.type = type
        self.code = code
        self.value = value
    }
}

/// Turns successive sets of contacts into the evdev events a kernel driver would send for a
/// device of a given description: protocol B slots with tracking ids, protocol A with
/// SYN_MT_REPORT, or single touch; plus BTN_TOUCH and ABS_X/ABS_Y pointer emulation as the
/// kernel's input-mt core does. The inverse of ``FrameAssembler``, which tests use to check both.
public struct ContactEncoder: Sendable {
    public let description: DeviceCapabilities
    /// How contacts are reported (decided from the axes, not from the touchscreen classifier, so
    /// non-touchscreen profiles can be driven too).
    public let touchProtocol: TouchProtocol
    public let mapper: CoordinateMapper
    private var slotOf: [Int: Int] = [:]
    private var slotInUse: [Bool]
    private var nextTrackingID: Int32 = 1
    private let trackingIDMaximum: Int32
    private var previous: [Int: SimulatedContact] = [:]
    /// Contacts beyond the slot count, dropped (a real panel reports at most its slots too).
    public private(set) var droppedContacts = 0

    /// An encoder for `description`; nil when it has no position axes to drive.
    public init?(description: DeviceCapabilities) {
        self.description = description
        let mt = description.hasAxis(EventCode.absMTPositionX) && description.hasAxis(EventCode.absMTPositionY)
        if mt, let slots = description.slotCount {
            touchProtocol = .slots(count: slots)
        } else if mt {
            touchProtocol = .protocolA
        } else if description.hasAxis(EventCode.absX) && description.hasAxis(EventCode.absY) {
            touchProtocol = .singleTouch(
                button: description.has(EventCode.evKey, EventCode.btnTouch) ? EventCode.btnTouch : EventCode.btnLeft)
        } else {
            return nil
        }
        let (x, y) = mt ? (EventCode.absMTPositionX, EventCode.absMTPositionY) : (EventCode.absX, EventCode.absY)
        mapper = CoordinateMapper(xAxis: description.absInfo[x]!, yAxis: description.absInfo[y]!)
        slotInUse = Array(repeating: false, count: description.slotCount ?? 0)
        trackingIDMaximum = description.absInfo[EventCode.absMTTrackingID]?.maximum ?? 65535
    }

    /// The events of one frame in which exactly `contacts` are down, ending with SYN_REPORT.
    public mutating func encode(_ contacts: [SimulatedContact], into events: inout [RawEvent]) {
        switch touchProtocol {
        case .slots: encodeSlots(contacts, into: &events)
        case .protocolA: encodeProtocolA(contacts, into: &events)
        case .singleTouch(let button): encodeSingle(contacts.min { $0.id < $1.id }, button: button, into: &events)
        }
        events.append(RawEvent(EventCode.evSyn, EventCode.synReport, 0))
    }

    private func device(_ p: SurfacePoint) -> DevicePoint {
        mapper.devicePoint(SurfacePoint(x: min(max(p.x, 0), 1), y: min(max(p.y, 0), 1)))
    }

    private func scaled(_ fraction: Double, _ code: UInt16) -> Int32? {
        guard let info = description.absInfo[code] else { return nil }
        return info.minimum + Int32((min(max(fraction, 0), 1) * Double(info.range)).rounded())
    }

    private func axes(of contact: SimulatedContact, changedFrom old: SimulatedContact?, into events: inout [RawEvent]) {
        let p = device(contact.position)
        let o = old.map { device($0.position) }
        if o?.x != p.x { events.append(RawEvent(EventCode.evAbs, EventCode.absMTPositionX, p.x)) }
        if o?.y != p.y { events.append(RawEvent(EventCode.evAbs, EventCode.absMTPositionY, p.y)) }
        if old == nil, let major = scaled(0.03, EventCode.absMTTouchMajor) {
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTTouchMajor, major))
        }
        if old?.pressure != contact.pressure, let pressure = scaled(contact.pressure, EventCode.absMTPressure) {
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTPressure, pressure))
        }
        if description.hasAxis(EventCode.absMTToolType) && (old == nil || old?.tool != contact.tool) {
            let tool: Int32 =
                switch contact.tool {
                case .finger: EventCode.mtToolFinger
                case .pen: EventCode.mtToolPen
                case .palm: EventCode.mtToolPalm
                }
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTToolType, tool))
        }
    }

    private mutating func encodeSlots(_ contacts: [SimulatedContact], into events: inout [RawEvent]) {
        let current = Set(contacts.map(\.id))
        for (id, slot) in slotOf.sorted(by: { $0.value < $1.value }) where !current.contains(id) {
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTSlot, Int32(slot)))
            events.append(RawEvent(EventCode.evAbs, EventCode.absMTTrackingID, -1))
            slotOf[id] = nil
            slotInUse[slot] = false
            previous[id] = nil
        }
        for contact in contacts.sorted(by: { $0.id < $1.id }) {
            if let slot = slotOf[contact.id] {
                var moved: [RawEvent] = []
                axes(of: contact, changedFrom: previous[contact.id], into: &moved)
                if !moved.isEmpty {
                    events.append(RawEvent(EventCode.evAbs, EventCode.absMTSlot, Int32(slot)))
                    events += moved
                }
            } else {
                guard let slot = slotInUse.firstIndex(of: false) else {
                    droppedContacts += 1
                    continue
                }
                slotInUse[slot] = true
                slotOf[contact.id] = slot
                events.append(RawEvent(EventCode.evAbs, EventCode.absMTSlot, Int32(slot)))
                events.append(RawEvent(EventCode.evAbs, EventCode.absMTTrackingID, nextTrackingID))
                nextTrackingID = nextTrackingID >= trackingIDMaximum ? 0 : nextTrackingID + 1
                axes(of: contact, changedFrom: nil, into: &events)
            }
            previous[contact.id] = contact
        }
        let first = slotOf.min { $0.value < $1.value }.flatMap { previous[$0.key] }
        emulatePointer(first, into: &events)
    }

    private mutating func encodeProtocolA(_ contacts: [SimulatedContact], into events: inout [RawEvent]) {
        let sorted = contacts.sorted { $0.id < $1.id }
        for contact in sorted {
            axes(of: contact, changedFrom: nil, into: &events)
            events.append(RawEvent(EventCode.evSyn, EventCode.synMTReport, 0))
        }
        if sorted.isEmpty { events.append(RawEvent(EventCode.evSyn, EventCode.synMTReport, 0)) }
        emulatePointer(sorted.first, into: &events)
        previous = Dictionary(uniqueKeysWithValues: sorted.map { ($0.id, $0) })
    }

    private var pointerDown = false
    private var pointer: DevicePoint?

    private mutating func emulatePointer(_ first: SimulatedContact?, into events: inout [RawEvent]) {
        let down = first != nil
        if down != pointerDown, description.has(EventCode.evKey, EventCode.btnTouch) {
            events.append(RawEvent(EventCode.evKey, EventCode.btnTouch, down ? 1 : 0))
        }
        pointerDown = down
        guard let first, description.hasAxis(EventCode.absX) else { return }
        let p = device(first.position)
        if pointer?.x != p.x { events.append(RawEvent(EventCode.evAbs, EventCode.absX, p.x)) }
        if pointer?.y != p.y { events.append(RawEvent(EventCode.evAbs, EventCode.absY, p.y)) }
        pointer = p
    }

    private mutating func encodeSingle(_ contact: SimulatedContact?, button: UInt16, into events: inout [RawEvent]) {
        if let contact {
            let p = device(contact.position)
            if pointer?.x != p.x { events.append(RawEvent(EventCode.evAbs, EventCode.absX, p.x)) }
            if pointer?.y != p.y { events.append(RawEvent(EventCode.evAbs, EventCode.absY, p.y)) }
            pointer = p
            if let pressure = scaled(contact.pressure, EventCode.absPressure),
                previous[contact.id]?.pressure != contact.pressure
            {
                events.append(RawEvent(EventCode.evAbs, EventCode.absPressure, pressure))
            }
            if !pointerDown { events.append(RawEvent(EventCode.evKey, button, 1)) }
            pointerDown = true
            previous = [contact.id: contact]
        } else {
            if pointerDown {
                if let pressure = scaled(0, EventCode.absPressure) {
                    events.append(RawEvent(EventCode.evAbs, EventCode.absPressure, pressure))
                }
                events.append(RawEvent(EventCode.evKey, button, 0))
            }
            pointerDown = false
            previous = [:]
        }
    }
}
