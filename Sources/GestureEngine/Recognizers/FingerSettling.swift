/// How many fingers a multi-finger gesture has, when they do not land at once.
///
/// People put three or four fingers down over 50–150 ms, and lift them one by one. libinput waits
/// for the finger count to settle before it decides a touchpad gesture (evdev-mt-touchpad-
/// gestures.c: `DEFAULT_GESTURE_SWIPE_TIMEOUT` 150 ms before it commits to a multi-finger swipe,
/// `DEFAULT_GESTURE_SWITCH_TIMEOUT` 100 ms before a changed count replaces the count of a gesture
/// in progress). This value does the same for a recognizer that composes it (pan, swipe, shape):
///
/// - **Landing window.** Fingers that land within `window` of the first (inclusive) belong to the
///   gesture; ``fingers`` is the most that were down at once. It is *settled* when the window has
///   passed, when a finger lifts (no more are coming), when `maxFingers` are down (no more may
///   come), or when the fingers have moved ``committedDistance`` together (a hand that travels
///   that far is making its gesture, not still putting fingers down: libinput commits to a
///   multi-finger gesture once its fingers move past `max_move`, 4 mm + 2 mm per finger beyond
///   two). A window of 0 settles at the first frame (UIKit's behaviour).
/// - **Switching.** After settling, ``currentFingers`` (what a continuous gesture reports as it
///   goes on) takes a different number of fingers down only once it has stayed that way for
///   ``switchDelay``, so fingers lifted one by one at the end of a stroke do not change it, and a
///   finger that joins for good does.
///
/// | state \ input | frame (down = n) | deadline (first landing + window) |
/// |---|---|---|
/// | idle | n > 0 → landing (fingers = n, deadline set) | — |
/// | landing | fingers = max(fingers, n); a lift, n ≥ maxFingers or moved ≥ committedDistance → settled | → settled |
/// | settled | n ≠ currentFingers for ``switchDelay`` → currentFingers = n | — |
///
/// The recognizer owns the timer: it reports ``deadline`` as its own and calls
/// ``timerFired(at:)``.
struct FingerSettling {
    enum State { case idle, landing, settled }

    /// libinput's `DEFAULT_GESTURE_SWITCH_TIMEOUT`.
    static let switchDelay = TimeSpan.milliseconds(100)
    /// Millimetres the fingers' centroid moves before the count is taken as it is: libinput's
    /// `max_move` for four fingers (4 mm + 2 × 2 mm).
    static let committedDistance = 8.0

    let window: TimeSpan
    let maxFingers: Int
    private(set) var state = State.idle
    /// The gesture's finger count: the most down at once in the landing window (final once
    /// ``isSettled``).
    private(set) var fingers = 0
    /// After settling, the number of fingers down, changed only after ``switchDelay``.
    private(set) var currentFingers = 0
    private(set) var firstLanding = Timestamp(microseconds: 0)
    /// A count different from ``currentFingers`` and since when it has been down.
    private var pendingCount = 0
    private var pendingSince = Timestamp(microseconds: 0)

    init(window: TimeSpan, maxFingers: Int) {
        self.window = window
        self.maxFingers = maxFingers
    }

    var isSettled: Bool { state == .settled }

    /// When the landing window closes, while it is open.
    var deadline: Timestamp? {
        // Inclusive: a finger landing exactly `window` after the first still counts.
        state == .landing ? firstLanding + window + TimeSpan(microseconds: 1) : nil
    }

    /// One frame of the recognizer's touches: `down` are down after it; `lifted` is true when
    /// some lifted in it; `moved` is how far (mm) their centroid has moved since the first landed.
    mutating func update(down: Int, lifted: Bool, moved: Double, at time: Timestamp) {
        switch state {
        case .idle:
            guard down > 0 else { return }
            state = .landing
            firstLanding = time
            fingers = down
            if lifted || down >= maxFingers || window.microseconds == 0 { settle() }
        case .landing:
            fingers = max(fingers, down)
            if lifted || fingers >= maxFingers || moved >= Self.committedDistance { settle() }
        case .settled:
            guard down > 0, down != currentFingers else {
                pendingCount = 0
                return
            }
            if down != pendingCount {
                pendingCount = down
                pendingSince = time
            } else if time - pendingSince >= Self.switchDelay {
                currentFingers = down
                pendingCount = 0
            }
        }
    }

    /// The landing window closed.
    mutating func timerFired(at time: Timestamp) {
        if state == .landing { settle() }
    }

    private mutating func settle() {
        state = .settled
        currentFingers = fingers
    }

    /// Why a finger landing now does not belong to the gesture: one had lifted, or the count
    /// had settled (how long after the first landing).
    func lateLanding(at time: Timestamp, afterLift: Bool) -> Failure {
        afterLift
            ? Failure(.landedAfterLift, nil, measured: 0, limit: 0)
            : Failure(
                .landedAfterSettling, .settle, measured: (time - firstLanding).milliseconds,
                limit: window.milliseconds)
    }

    /// Why a gesture that only waited for its count to settle failed: its fingers lifted first.
    func liftedBeforeSettling(at time: Timestamp) -> Failure {
        Failure(
            .liftedBeforeSettling, .settle, measured: (time - firstLanding).milliseconds, limit: window.milliseconds)
    }

    mutating func reset() {
        state = .idle
        fingers = 0
        currentFingers = 0
        pendingCount = 0
    }
}
