import EvdevValues
import TouchValues

/// Counts of the irregularities the assembler absorbed, for logs and the corpus test. None of
/// them is an error: each is a quirk of some real panel, handled by a documented rule
/// (docs/INPUT.md, "Quirks").
public struct AssemblerDiagnostics: Hashable, Sendable {
    /// Slots mtdev used beyond the ten a protocol A device starts with (the slot table grew).
    public var slotsAdded = 0
    /// Events for a slot the device does not have (negative, or at or beyond the slot count it
    /// announces: a kernel drops ABS_MT_SLOT values out of that range, so only a recording can
    /// hold them); dropped.
    public var eventsForInvalidSlots = 0
    /// The highest slot index among those, -1 when none.
    public var highestInvalidSlot: Int32 = -1
    /// Contacts that were down before the assembler saw them land (at open, at the start of a
    /// recording, after SYN_DROPPED); ignored until they lift.
    public var contactsIgnored = 0
    /// Touches cancelled because ABS_MT_TOOL_TYPE turned to palm.
    public var palmCancellations = 0
    /// Contacts that landed and lifted between two SYN_REPORTs (reported in two frames with the
    /// same time).
    public var contactsWithinOneFrame = 0
    /// Contacts that landed and left their slot between two SYN_REPORTs while another contact
    /// took the slot before the report (a slot holds one contact at a report): never reported.
    public var contactsSupersededWithinOneFrame = 0
    /// A new tracking id in a slot whose contact never lifted (the old touch ends, a new one begins).
    public var trackingIDReplacements = 0
    /// SYN_DROPPED seen (events lost; live touches cancelled).
    public var eventsDropped = 0

    public init() {}
}

/// Turns evdev events into ``TouchFrame``s, one per SYN_REPORT that changed something.
///
/// The same code serves live devices and replays. Rules (docs/INPUT.md has the full list):
/// - A contact gets a fresh ``TouchID`` when it lands; ids are never reused on a device, whatever
///   the kernel does with ABS_MT_TRACKING_ID.
/// - Every frame lists every live touch (stationary ones too), plus those that ended or were
///   cancelled in it. A SYN_REPORT that changes nothing produces no frame.
/// - A contact the assembler did not see land (down at open, at the start of a recording, or after
///   SYN_DROPPED) is ignored until it lifts: a gesture never starts from the middle of a touch.
/// - ABS_MT_TOOL_TYPE turning to palm cancels the touch; a contact that lands as a palm is reported
///   with ``ToolType/palm`` so recognizers' `accepts` filters can refuse it.
/// - A contact that lands and lifts between two reports is reported as began, then ended, in two
///   frames with the same time — unless another contact took its slot before the report: a slot
///   gives a frame one touch at most (so a panel's frames never hold more fingers than it has
///   slots, whatever its tracking ids do between two reports).
/// - Protocol A devices go through mtdev first; single-touch devices are one contact driven by
///   their touch button.
public struct FrameAssembler {
    /// The most slots followed, whatever a device announces: the engine follows 64 touches of a
    /// device at once (60 is the most any corpus panel announces), so no contact is followed here
    /// that the engine would have to leave out.
    public static let maximumSlots = 64

    public let device: DeviceID
    public let touchProtocol: TouchProtocol
    /// Device units → surface coordinates.
    public let mapper: CoordinateMapper
    public private(set) var diagnostics = AssemblerDiagnostics()
    /// Touches currently down and reported (or about to be, at the next SYN_REPORT).
    public private(set) var liveTouchCount = 0
    /// The slots followed now (a protocol B device's, at most ``maximumSlots``).
    public var slotCount: Int { slots.count }

    private enum Contact {
        /// Nothing is known (start of a recording, after SYN_DROPPED).
        case unknown
        case free
        case live(TouchID, reported: Bool)
        /// A contact not followed: down before we saw it land, or cancelled (palm). Waits for its lift.
        case ignored
    }

    private struct Slot {
        var contact: Contact
        var trackingID: Int32 = -1
        var x: Int32 = 0
        var y: Int32 = 0
        var major: Int32 = 0
        var pressure: Int32 = 0
        var tool: Int32 = EventCode.mtToolFinger
        var changed = false

        /// The axes an event sets. A switch, not a `WritableKeyPath`: a key path costs a runtime
        /// call per access, ~4 k instructions a frame on the frame path.
        enum Axis {
            case x, y, major, pressure
        }

        /// Sets `axis`; false when it held `value` already.
        mutating func set(_ axis: Axis, _ value: Int32) -> Bool {
            switch axis {
            case .x:
                defer { x = value }
                return x != value
            case .y:
                defer { y = value }
                return y != value
            case .major:
                defer { major = value }
                return major != value
            case .pressure:
                defer { pressure = value }
                return pressure != value
            }
        }
    }

    private let isSingleTouch: Bool
    private let touchButton: UInt16
    private let pressureCode: UInt16
    private let units: Units
    private var slots: [Slot]
    private var currentSlot = 0
    /// One past the highest slot that may hold a live contact: a frame reads no slot above it
    /// (a 60-slot panel with two fingers down reads two or three, not 60).
    private var liveEnd = 0
    private var nextTouchID: UInt32 = 1
    /// Touches that ended or were cancelled since the last frame, reported in the next one.
    private var pendingEnds: [Touch] = []
    /// Contacts that landed and lifted since the last frame, with their slots (one a slot).
    private var instantContacts: [(slot: Int, touch: Touch)] = []
    /// Whether anything reportable happened since the last frame.
    private var dirty = false
    private var converter: MtdevConverter?
    private let description: DeviceCapabilities

    /// An assembler for a device of `description` whose contacts are reported as `touchProtocol`.
    ///
    /// - Parameters:
    ///   - geometry: the physical size decides the contact size in mm (nil when unknown).
    ///   - contactsKnown: true for live devices, whose slot state is then given by
    ///     ``synchronize(_:)``; false for recordings, whose start state is unknown.
    public init(
        device: DeviceID, description: DeviceCapabilities, touchProtocol: TouchProtocol, mapper: CoordinateMapper,
        geometry: SurfaceGeometry, contactsKnown: Bool = false
    ) {
        self.device = device
        self.description = description
        self.touchProtocol = touchProtocol
        self.mapper = mapper
        let slotCount: Int
        switch touchProtocol {
        case .slots(let count):
            slotCount = min(max(count, 1), Self.maximumSlots)
            isSingleTouch = false
            touchButton = EventCode.btnTouch
            pressureCode = EventCode.absMTPressure
        case .protocolA:
            // mtdev hands out slots itself, starting from none: their state is always known.
            slotCount = 10
            isSingleTouch = false
            touchButton = EventCode.btnTouch
            pressureCode = EventCode.absMTPressure
            converter = MtdevConverter(description: description)
        case .singleTouch(let button):
            slotCount = 1
            isSingleTouch = true
            touchButton = button
            pressureCode = EventCode.absPressure
        }
        let known: Bool =
            switch touchProtocol {
            case .protocolA: true
            case .slots, .singleTouch: contactsKnown
            }
        slots = Array(repeating: Slot(contact: known ? .free : .unknown), count: slotCount)
        // Millimetres per unit of ABS_MT_TOUCH_MAJOR, when known; pressure from its range.
        let majorScale = Self.majorScale(
            description: description, mapper: mapper, geometry: geometry, singleTouch: isSingleTouch)
        if let p = description.absInfo[pressureCode], p.range > 0 {
            units = Units(
                mapper: mapper, majorScale: majorScale, pressureMinimum: Double(p.minimum),
                pressureScale: 1 / Double(p.range))
        } else {
            units = Units(mapper: mapper, majorScale: majorScale, pressureMinimum: 0, pressureScale: nil)
        }
        pendingEnds.reserveCapacity(8)
        instantContacts.reserveCapacity(4)
    }

    /// mm per unit of ABS_MT_TOUCH_MAJOR: its own resolution if it has one, else the position axes'
    /// units per mm (the MT protocol expresses sizes in surface units) when the size is known.
    private static func majorScale(
        description: DeviceCapabilities, mapper: CoordinateMapper, geometry: SurfaceGeometry, singleTouch: Bool
    ) -> Double? {
        guard !singleTouch, let major = description.absInfo[EventCode.absMTTouchMajor] else { return nil }
        if major.resolution > 0 { return 1 / Double(major.resolution) }
        guard let size = geometry.physicalSize, mapper.xAxis.range > 0, mapper.yAxis.range > 0 else { return nil }
        // Rotation may have swapped width and height; the average of both axes' mm/unit is the
        // same either way.
        let (w, h) =
            mapper.rotation.swapsAxes ? (size.height.value, size.width.value) : (size.width.value, size.height.value)
        return (w / Double(mapper.xAxis.range) + h / Double(mapper.yAxis.range)) / 2
    }

    // MARK: Events

    /// Processes one event; a SYN_REPORT that changed something appends one frame (two when a
    /// contact landed and lifted within it) to `frames`.
    /// The per-event path (slot, axis, value) is inlined into this call, and the call into the
    /// read loops of devices and recordings: a frame is ~16 events.
    @inline(__always)
    public mutating func handle(_ event: InputEvent, into frames: inout TouchFrameBuffer) {
        if converter != nil {
            convertProtocolA(event, into: &frames)
        } else {
            process(event, into: &frames)
        }
    }

    private mutating func convertProtocolA(_ event: InputEvent, into frames: inout TouchFrameBuffer) {
        guard let converter else { return }
        if event.type == EventCode.evSyn && event.code == EventCode.synDropped {
            process(event, into: &frames)
            // mtdev's tracking state is as stale as ours: start a fresh converter.
            self.converter = MtdevConverter(description: description)
            return
        }
        // mtdev indexes tables by code without checking: only codes a kernel could send reach it.
        guard let maximum = EventCode.maximumCode(ofType: event.type), event.code <= maximum else { return }
        converter.put(event)
        while let converted = converter.next() { process(converted, into: &frames) }
    }

    @inline(__always)
    private mutating func process(_ event: InputEvent, into frames: inout TouchFrameBuffer) {
        switch event.type {
        case EventCode.evSyn:
            if event.code == EventCode.synReport {
                flush(at: event.time, into: &frames)
            } else if event.code == EventCode.synDropped {
                diagnostics.eventsDropped += 1
                cancelAll(at: event.time, into: &frames)
                // The lost events may have put contacts down anywhere: nothing is known any more.
                for i in slots.indices {
                    if case .free = slots[i].contact { slots[i].contact = .unknown }
                }
            }
        case EventCode.evAbs:
            if isSingleTouch { singleTouchAxis(event) } else { multitouchAxis(event) }
        case EventCode.evKey:
            if isSingleTouch && event.code == touchButton { singleTouchButton(event.value) }
        default:
            break
        }
    }

    @inline(__always)
    private mutating func multitouchAxis(_ event: InputEvent) {
        let code = event.code
        let value = event.value
        if code == EventCode.absMTSlot {
            selectSlot(value)
            return
        }
        guard code >= EventCode.absMTTouchMajor && code <= EventCode.absMTPressure else { return }
        guard currentSlot >= 0 else {
            diagnostics.eventsForInvalidSlots += 1
            return
        }
        switch code {
        case EventCode.absMTTrackingID: trackingID(value)
        case EventCode.absMTPositionX: update(.x, value)
        case EventCode.absMTPositionY: update(.y, value)
        case EventCode.absMTTouchMajor: update(.major, value)
        case EventCode.absMTPressure: update(.pressure, value)
        case EventCode.absMTToolType: toolType(value)
        default: break
        }
    }

    @inline(__always)
    private mutating func selectSlot(_ value: Int32) {
        // A protocol B device has the slots it announces (the kernel drops other slot numbers);
        // mtdev hands out slots itself, as many as it needs.
        let limit = converter == nil ? slots.count : Self.maximumSlots
        guard value >= 0 && value < limit else {
            currentSlot = -1
            diagnostics.eventsForInvalidSlots += 1
            diagnostics.highestInvalidSlot = max(diagnostics.highestInvalidSlot, value)
            return
        }
        let index = Int(value)
        if index >= slots.count {
            // The slot table grows with mtdev's slots; the new slots' state is known (mtdev's is).
            diagnostics.slotsAdded += index + 1 - slots.count
            slots.append(contentsOf: repeatElement(Slot(contact: .free), count: index + 1 - slots.count))
        }
        currentSlot = index
    }

    @inline(__always)
    private mutating func update(_ axis: Slot.Axis, _ value: Int32) {
        guard slots[currentSlot].set(axis, value) else { return }
        switch slots[currentSlot].contact {
        case .live:
            slots[currentSlot].changed = true
            dirty = true
        case .unknown:
            // Values for a multitouch slot whose state we never learnt: a contact that was already
            // down. (A single-touch device's position is not a contact until its button says so.)
            if !isSingleTouch {
                slots[currentSlot].contact = .ignored
                diagnostics.contactsIgnored += 1
            }
        case .free, .ignored:
            break
        }
    }

    private mutating func trackingID(_ value: Int32) {
        let slot = currentSlot
        if value < 0 {
            lift(slot: slot)
            slots[slot].trackingID = -1
            return
        }
        switch slots[slot].contact {
        case .live, .ignored:
            // Some firmware repeats the current id; only a different id is a new contact.
            guard slots[slot].trackingID != value else { return }
            if case .live = slots[slot].contact { diagnostics.trackingIDReplacements += 1 }
            lift(slot: slot)
        case .free, .unknown:
            break
        }
        // The slot's contact at the report will be this one: one that came and went before it
        // since the last report is not one of the frame's fingers.
        if !instantContacts.isEmpty { dropInstantContact(in: slot) }
        slots[slot].trackingID = value
        slots[slot].contact = .live(TouchID(nextTouchID), reported: false)
        nextTouchID &+= 1
        slots[slot].changed = false
        liveTouchCount += 1
        liveEnd = max(liveEnd, slot + 1)
        dirty = true
    }

    /// The contact in `slot` lifted: ended (or, never reported, began-and-ended).
    private mutating func lift(slot index: Int) {
        switch slots[index].contact {
        case .live(let id, let reported):
            if reported {
                pendingEnds.append(touch(in: slots[index], id: id, phase: .ended))
            } else {
                if !instantContacts.isEmpty { dropInstantContact(in: index) }
                instantContacts.append((index, touch(in: slots[index], id: id, phase: .began)))
                diagnostics.contactsWithinOneFrame += 1
            }
            liveTouchCount -= 1
            dirty = true
        case .ignored, .unknown, .free:
            break
        }
        slots[index].contact = .free
        slots[index].changed = false
    }

    /// The contact that landed and lifted in `slot` since the last report, if any, is superseded
    /// by a later one in the slot: it is not reported.
    private mutating func dropInstantContact(in slot: Int) {
        guard let index = instantContacts.firstIndex(where: { $0.slot == slot }) else { return }
        instantContacts.remove(at: index)
        diagnostics.contactsWithinOneFrame -= 1
        diagnostics.contactsSupersededWithinOneFrame += 1
    }

    private mutating func toolType(_ value: Int32) {
        let previous = slots[currentSlot].tool
        guard previous != value else { return }
        slots[currentSlot].tool = value
        switch slots[currentSlot].contact {
        case .live(let id, let reported):
            if value == EventCode.mtToolPalm && reported {
                pendingEnds.append(touch(in: slots[currentSlot], id: id, phase: .cancelled))
                slots[currentSlot].contact = .ignored
                diagnostics.palmCancellations += 1
                liveTouchCount -= 1
            } else {
                slots[currentSlot].changed = true
            }
            dirty = true
        case .unknown:
            slots[currentSlot].contact = .ignored
            diagnostics.contactsIgnored += 1
        case .free, .ignored:
            break
        }
    }

    private mutating func singleTouchAxis(_ event: InputEvent) {
        currentSlot = 0
        switch event.code {
        case EventCode.absX: update(.x, event.value)
        case EventCode.absY: update(.y, event.value)
        case EventCode.absPressure: update(.pressure, event.value)
        default: break
        }
    }

    private mutating func singleTouchButton(_ value: Int32) {
        currentSlot = 0
        switch value {
        case 0: lift(slot: 0)
        case 1:
            switch slots[0].contact {
            case .free, .unknown: trackingID(0)
            case .live, .ignored: break
            }
        default: break  // autorepeat
        }
    }

    // MARK: Frames

    private func touch(in slot: Slot, id: TouchID, phase: TouchPhase) -> Touch {
        units.touch(in: slot, id: id, phase: phase)
    }

    /// What turns a slot's device units into a ``Touch``: apart from the assembler's state, so
    /// that a frame's touches are made while the slots are borrowed.
    private struct Units {
        let mapper: CoordinateMapper
        let majorScale: Double?
        let pressureMinimum: Double
        let pressureScale: Double?

        @inline(__always)
        func touch(in slot: Slot, id: TouchID, phase: TouchPhase) -> Touch {
            let tool: ToolType =
                switch slot.tool {
                case EventCode.mtToolPalm: .palm
                case EventCode.mtToolPen: .pen
                default: .finger
                }
            return Touch(
                id: id, phase: phase, position: mapper.surfacePoint(x: slot.x, y: slot.y), tool: tool,
                contactSize: majorScale.map { Millimeters(Double(slot.major) * $0) },
                pressure: pressureScale.map { min(max((Double(slot.pressure) - pressureMinimum) * $0, 0), 1) },
                raw: RawContact(
                    position: DevicePoint(x: slot.x, y: slot.y), touchMajor: slot.major, pressure: slot.pressure))
        }
    }

    private mutating func flush(at time: Timestamp, into frames: inout TouchFrameBuffer) {
        guard dirty else { return }
        dirty = false
        let units = units
        // One access to the frame's touches for all of them, and one borrow of the slots for the
        // whole frame: not an access (and a uniqueness check) for each touch, nor for each read
        // and write of a slot.
        frames.appendFrame(device: device, time: time) { touches in
            if !pendingEnds.isEmpty { touches.append(contentsOf: pendingEnds) }
            let end = liveEnd
            liveEnd = slots.withUnsafeMutableBufferPointer { slots in
                var highest = -1
                for i in 0..<end {
                    guard case .live(let id, let reported) = slots[i].contact else { continue }
                    highest = i
                    let phase: TouchPhase = !reported ? .began : (slots[i].changed ? .moved : .stationary)
                    touches.append(units.touch(in: slots[i], id: id, phase: phase))
                    if phase != .stationary {
                        slots[i].contact = .live(id, reported: true)
                        slots[i].changed = false
                    }
                }
                return highest + 1
            }
            for instant in instantContacts { touches.append(instant.touch) }
        }
        if !instantContacts.isEmpty {
            // The second frame: the instant contacts end, everything else holds still.
            frames.startFrame(device: device, time: time)
            for instant in instantContacts {
                var t = instant.touch
                t.phase = .ended
                frames.appendTouch(t)
            }
            appendStationary(into: &frames)
        }
        // Emptied only when filled: `removeAll(keepingCapacity:)` is a call even on an empty array.
        if !pendingEnds.isEmpty { pendingEnds.removeAll(keepingCapacity: true) }
        if !instantContacts.isEmpty { instantContacts.removeAll(keepingCapacity: true) }
    }

    private func appendStationary(into frames: inout TouchFrameBuffer) {
        for i in 0..<liveEnd {
            guard case .live(let id, true) = slots[i].contact else { continue }
            frames.appendTouch(touch(in: slots[i], id: id, phase: .stationary))
        }
    }

    // MARK: Faults

    /// Cancels every touch (device removed, events lost): appends a frame at `time` in which each
    /// live touch is `cancelled`, unless none is live. Their contacts are ignored until they lift.
    public mutating func cancelAll(at time: Timestamp, into frames: inout TouchFrameBuffer) {
        var cancelled = pendingEnds
        for i in cancelled.indices { cancelled[i].phase = .cancelled }
        for i in slots.indices {
            guard case .live(let id, let reported) = slots[i].contact else { continue }
            if reported { cancelled.append(touch(in: slots[i], id: id, phase: .cancelled)) }
            slots[i].contact = .ignored
            slots[i].changed = false
        }
        pendingEnds.removeAll(keepingCapacity: true)
        instantContacts.removeAll(keepingCapacity: true)
        liveTouchCount = 0
        liveEnd = 0
        dirty = false
        guard !cancelled.isEmpty else { return }
        frames.startFrame(device: device, time: time)
        for t in cancelled { frames.appendTouch(t) }
    }

    /// The state of one slot as the kernel holds it (libevdev's view after open or a resync).
    public struct SlotState: Hashable, Sendable {
        public var trackingID: Int32
        public var x: Int32
        public var y: Int32
        public var touchMajor: Int32
        public var pressure: Int32
        public var toolType: Int32

        public init(
            trackingID: Int32, x: Int32, y: Int32, touchMajor: Int32 = 0, pressure: Int32 = 0,
            toolType: Int32 = EventCode.mtToolFinger
        ) {
            self.trackingID = trackingID
            self.x = x
            self.y = y
            self.touchMajor = touchMajor
            self.pressure = pressure
            self.toolType = toolType
        }
    }

    /// Takes the kernel's slot state (after open, or after a resync with ``cancelAll(at:into:)``
    /// called first): contacts already down are ignored until they lift; everything else is free.
    /// For single-touch devices pass one slot whose tracking id is 0 when the button is down.
    public mutating func synchronize(_ states: [SlotState], currentSlot: Int = 0) {
        precondition(liveTouchCount == 0, "synchronize(_:) after cancelAll(at:into:)")
        for (i, state) in states.prefix(Self.maximumSlots).enumerated() {
            if i >= slots.count { slots.append(Slot(contact: .free)) }
            slots[i].trackingID = state.trackingID
            slots[i].x = state.x
            slots[i].y = state.y
            slots[i].major = state.touchMajor
            slots[i].pressure = state.pressure
            slots[i].tool = state.toolType
            slots[i].changed = false
            if state.trackingID >= 0 {
                slots[i].contact = .ignored
                diagnostics.contactsIgnored += 1
            } else {
                slots[i].contact = .free
            }
        }
        for i in states.count..<max(slots.count, states.count) { slots[i].contact = .free }
        self.currentSlot = currentSlot >= 0 && currentSlot < slots.count ? currentSlot : 0
    }
}
