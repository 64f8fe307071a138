/// The touches of one device, in numbered slots so that recognizers can hold touch sets as
/// 64-bit masks.
///
/// A slot is taken when a touch lands and given back only when the touch has lifted, no
/// recognizer still counts it among its touches (a double tap remembers the first tap) and the
/// views have been told everything about it (R8). So a mask bit always means the same touch.
struct TouchTable {
    static let capacity = 64

    /// The engine-wide touch id of each slot.
    var ids: [TouchID]
    /// Where and when the touch landed.
    var starts: [SurfacePoint]
    var startTimes: [Timestamp]
    /// The region the touch was hit-tested to when it landed, among the configuration's regions
    /// (index into the compiled regions; the configuration's keep their indices while clients
    /// come and go).
    var regions: [Int]
    /// The clients whose own regions it landed in, and where (R1), for the views.
    var clientRegions: [[ClientRegion]]
    /// What it is private to, from the private regions it landed in (``Privacy``); read only
    /// for the slots of ``privateSlots``.
    var privacy: [Privacy]
    /// The touch as last reported: its current (or, once lifted, last) surface position
    /// (``position(_:)``), and for the views its tool, size and pressure. One table for both, so
    /// a moving touch is one store a frame.
    var lastTouch: [Touch]
    /// What the views have been told of the touch (R8).
    var views: [ViewPhase]

    /// Touches that are down.
    var live: UInt64 = 0
    /// Slots in use: live touches plus lifted ones still referenced.
    var allocated: UInt64 = 0
    /// Live touches that take part in nothing any more: they were down when the configuration
    /// was reloaded or events were lost (R9). Their frames are ignored until they lift.
    var orphans: UInt64 = 0
    /// Slots with view events in the arena's queue (R8): held back by a recognizer, or waiting
    /// behind such events. Checked whenever a recognizer decides; the slots stay allocated.
    var viewPending: UInt64 = 0
    /// Slots whose ``clientRegions`` are not empty (so the frame path reads none of the others).
    var withClientRegions: UInt64 = 0
    /// Slots whose touch landed in a private region: a set without one costs a mask test.
    var privateSlots: UInt64 = 0

    init() {
        let n = Self.capacity
        ids = Array(repeating: TouchID(0), count: n)
        starts = Array(repeating: SurfacePoint(x: 0, y: 0), count: n)
        startTimes = Array(repeating: Timestamp(microseconds: 0), count: n)
        regions = Array(repeating: 0, count: n)
        clientRegions = Array(repeating: [], count: n)
        privacy = Array(repeating: .open, count: n)
        lastTouch = Array(
            repeating: Touch(id: TouchID(0), phase: .ended, position: SurfacePoint(x: 0, y: 0)), count: n)
        views = Array(repeating: .finished, count: n)
    }

    /// Current (or, once lifted, last) surface position of the slot's touch.
    @inline(__always) func position(_ slot: Int) -> SurfacePoint { lastTouch[slot].position }

    /// The slot of a live touch with this id.
    @inline(__always) func slot(of id: TouchID) -> Int? { slot(of: id, after: -1) }

    /// The slot of a live touch with this id, looked for first among the slots above `previous`
    /// (-1: every slot). A frame lists its touches in the order they landed, most of the time,
    /// and they took slots in that order: asked with the slot of the frame's touch before it, the
    /// first slot looked at is the one. A live id is in one slot only, so the order of the search
    /// changes nothing but its length.
    @inline(__always) func slot(of id: TouchID, after previous: Int) -> Int? {
        let above = live & (UInt64.max << UInt64(previous + 1))
        for slot in SlotBits(above) where ids[slot] == id { return slot }
        for slot in SlotBits(live & ~above) where ids[slot] == id { return slot }
        return nil
    }

    /// Takes a free slot for a touch that lands now, or nil when all 64 are in use.
    mutating func allocate(_ touch: Touch, at time: Timestamp, region: Int) -> Int? {
        let free = ~allocated
        guard free != 0 else { return nil }
        let slot = free.trailingZeroBitCount
        allocated |= .bit(slot)
        live |= .bit(slot)
        ids[slot] = touch.id
        starts[slot] = touch.position
        startTimes[slot] = time
        regions[slot] = region
        if withClientRegions & .bit(slot) != 0 {
            clientRegions[slot] = []
            withClientRegions &= ~.bit(slot)
        }
        privateSlots &= ~.bit(slot)
        lastTouch[slot] = touch
        views[slot] = .untold
        return slot
    }

    /// The touch in `slot` landed in private regions (``Privacy``).
    @inline(__always) mutating func setPrivacy(_ slot: Int, _ mark: Privacy) {
        privacy[slot] = mark
        privateSlots |= .bit(slot)
    }

    /// What the touches of `mask` together are private to.
    @inline(__always) func privacy(of mask: UInt64) -> Privacy {
        guard mask & privateSlots != 0 else { return .open }
        var together = Privacy.open
        for slot in SlotBits(mask & privateSlots) { together.formUnion(privacy[slot]) }
        return together
    }

    /// The mean position of the touches in `mask` (surface coordinates).
    @inline(__always) func centroid(_ mask: UInt64) -> SurfacePoint {
        var x = 0.0
        var y = 0.0
        var n = 0.0
        for slot in SlotBits(mask) {
            x += lastTouch[slot].position.x
            y += lastTouch[slot].position.y
            n += 1
        }
        return n > 0 ? SurfacePoint(x: x / n, y: y / n) : SurfacePoint(x: 0, y: 0)
    }

    /// When the first of the touches in `mask` landed.
    @inline(__always) func earliestStart(_ mask: UInt64) -> Timestamp {
        var earliest = Timestamp(microseconds: Int64.max)
        for slot in SlotBits(mask) where startTimes[slot] < earliest { earliest = startTimes[slot] }
        return earliest
    }

    /// When the last of the touches in `mask` landed.
    @inline(__always) func latestStart(_ mask: UInt64) -> Timestamp {
        var latest = Timestamp(microseconds: Int64.min)
        for slot in SlotBits(mask) where startTimes[slot] > latest { latest = startTimes[slot] }
        return latest
    }

    /// The largest distance in millimetres any touch of `mask` has moved from where it landed.
    @inline(__always) func maxTravel(_ mask: UInt64, _ scale: MeasuringScale) -> Double {
        var worst = 0.0
        for slot in SlotBits(mask) {
            let d = scale.mm(lastTouch[slot].position - starts[slot]).length
            if d > worst { worst = d }
        }
        return worst
    }
}

/// What the views have seen of a touch (R8); docs/ARBITRATION.md and DeviceArena+Views.swift
/// have the transitions.
enum ViewPhase: UInt8 {
    /// It landed in the frame being processed; the views are told at the end of the frame.
    case untold
    /// Nothing yet: a delays-touches-began recognizer is still undecided; events are queued.
    case delayed
    /// Views see it: they have seen it begin, or will once what is queued before it is released.
    case shown
    /// Views see it; its end is held by a delays-touches-ended recognizer.
    case ending
    /// Views have (or will have, in order) its end or its cancel, or will never see it.
    case finished
}
