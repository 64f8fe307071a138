/// What the stage before the arena (``PanelSettings``, docs/ARBITRATION.md, "Before the arena")
/// did on one panel: a wake, idle and active, a stuck contact ended — and, while
/// ``GestureEngine/explains`` is on, each contact it kept from everyone and why.
public struct PanelEvent: Sendable, Equatable {
    public var device: DeviceID
    /// The kernel time it happened at: the frame's, or the deadline's (idle, a stuck contact).
    public var time: Timestamp
    public var what: What

    public init(device: DeviceID, time: Timestamp, what: What) {
        self.device = device
        self.time = time
        self.what = what
    }

    public enum What: Sendable, Equatable {
        /// A touch landed while the screen was off (or the panel idle, with `wakeAfterIdle`): it
        /// wakes the screen and reaches nobody, nor do the fingers that land before it lifts.
        case woken(TouchID, at: SurfacePoint, cause: WakeCause)
        /// Nobody touched the panel for `after` (``PanelSettings/idleAfter``).
        case idle(after: TimeSpan)
        /// A touch landed on an idle panel.
        case active(TouchID)
        /// A contact that stayed within the limit's distance for `still` was ended: the
        /// recognizers that had it stopped and the views got `cancelled`; what it reports until it
        /// lifts reaches nobody. `repeats`: how many contacts were ended before at the same
        /// place (within ``PanelEvent/samePlace``) on this panel — a panel failing there.
        case stuckEnded(TouchID, at: SurfacePoint, still: TimeSpan, repeats: Int)
        /// An explanation: the contact reaches nobody until it lifts — it woke the screen
        /// (`cause`), or landed while a wake's contacts were down (`cause` nil).
        case swallowed(TouchID, at: SurfacePoint, cause: WakeCause?)
        /// An explanation: the contact landed in dead zone `zone` (its index in
        /// ``PanelSettings/deadZones``) and reaches nobody until it lifts.
        case ignored(TouchID, at: SurfacePoint, zone: Int)
    }

    /// Ended stuck contacts this close together (millimetres on the glass) are at the same place.
    public static let samePlace = Millimeters(10)

    /// Whether it is told only to those who take explanations (a contact kept from everyone). The
    /// engine makes it all the same, explaining or not: the daemon counts every one (docs/FLEET.md).
    public var isExplanation: Bool {
        switch what {
        case .swallowed, .ignored: true
        case .woken, .idle, .active, .stuckEnded: false
        }
    }

    /// The touch it is about, if one.
    public var touch: TouchID? {
        switch what {
        case .woken(let id, _, _), .active(let id), .stuckEnded(let id, _, _, _), .swallowed(let id, _, _),
            .ignored(let id, _, _):
            id
        case .idle: nil
        }
    }
}

/// Why a touch was a wake.
public enum WakeCause: String, Hashable, Sendable, CaseIterable, Codable {
    /// The caller said the screen was off (``GestureEngine/screen(_:isOn:)``).
    case screenOff = "screen-off"
    /// The panel was idle and ``PanelSettings/wakeAfterIdle`` is on.
    case idle
}
