/// How many fingers a multi-finger gesture has, when they do not land at once.
///
/// People put three or four fingers down over 50–150 ms, and lift them one by one. libinput waits
/// for the finger count to settle before it decides a touchpad gesture (evdev-mt-touchpad-
/// gestures.c: `DEFAULT_GESTURE_SWIPE_TIMEOUT` 150 ms before it commits to a multi-finger swipe,
/// `DEFAULT_GESTURE_SWITCH_TIMEOUT` 100 ms before a changed count replaces the count of a gesture
/// in progress). This value does the same for a recognizer that composes it (pan, swipe, shape):
///
/// - **Landing window.** Fingers that land within `window` of the first (inclusive) belong to the
///   gesture; ``fingers`` is the most that were down at once. It is *settled* (the count stands,
///   a recognizer may decide with it) when the window has passed.
/// - **Late fingers.** Until the count is *committed*, a finger that lands after the window still
///   joins the gesture: a hand whose last finger comes down 160 ms after the first, before the hand
///   has moved, is still putting its fingers down (libinput, too, follows a changed count until
///   the gesture starts). The count is committed when a finger lifts (no more are coming), when
///   `maxFingers` are down (no more may come), or when the fingers have moved ``committedDistance``
///   together (a hand that travels that far is making its gesture, not still landing: libinput
///   commits to a multi-finger gesture once its fingers move past `max_move`, 4 mm + 2 mm per
///   finger beyond two) — in the window or after it. A finger landing after that is a new gesture.
///   A window of 0 commits the count at the first frame (UIKit's behaviour: no waiting at all).
/// - **Switching.** Once committed, ``currentFingers`` (what a continuous gesture reports as it
///   goes on) takes a different number of fingers down only once it has stayed that way for
///   ``switchDelay``, so fingers lifted one by one at the end of a stroke do not change it, and a
///   finger that joins for good does.
///
/// Why late fingers join: the kernel stamps a finger when its report arrives, which on a slow
/// board can be tens of milliseconds after the finger touched (in the test VM a hand landing over
/// 150 ms was stamped over 161 ms); with the window alone, that hand's 3-finger swipe was no swipe
/// at all and its pan began with 2 fingers.
///
/// | state \ input | frame (down = n) | deadline (first landing + window) |
/// |---|---|---|
/// | idle | n > 0 → landing (fingers = n, deadline set); a lift, n ≥ maxFingers or a window of 0 → committed | — |
/// | landing | fingers = max(fingers, n); a lift, n ≥ maxFingers or moved ≥ committedDistance → committed | → settled |
/// | settled | fingers = max(fingers, n); a lift, n ≥ maxFingers or moved ≥ committedDistance → committed | — |
/// | committed | n ≠ currentFingers for ``switchDelay`` → currentFingers = n | — |
///
/// The recognizer owns the timer: it reports ``deadline`` as its own and calls
/// ``timerFired(at:)``.
struct FingerSettling {
    enum State { case idle, landing, settled, committed }

    /// libinput's `DEFAULT_GESTURE_SWITCH_TIMEOUT`.
    static let switchDelay = TimeSpan.milliseconds(100)
    /// Millimetres the fingers' centroid moves before the count is taken as it is: libinput's
    /// `max_move` for four fingers (4 mm + 2 × 2 mm).
    static let committedDistance = 8.0

    let window: TimeSpan
    let maxFingers: Int
    private(set) var state = State.idle
    /// The gesture's finger count: the most down at once before the count was committed (final
    /// once ``isCommitted``).
    private(set) var fingers = 0
    /// After settling, the number of fingers down, changed only after ``switchDelay`` once committed.
    private(set) var currentFingers = 0
    private(set) var firstLanding = Timestamp(microseconds: 0)
    /// A count different from ``currentFingers`` and since when it has been down.
    private var pendingCount = 0
    private var pendingSince = Timestamp(microseconds: 0)

    init(window: TimeSpan, maxFingers: Int) {
        self.window = window
        self.maxFingers = maxFingers
    }

    /// The count stands: a recognizer may decide with it (it may still grow until committed).
    var isSettled: Bool { state == .settled || state == .committed }
    /// The count is final: a finger landing now is not part of this gesture.
    var isCommitted: Bool { state == .committed }

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
            currentFingers = down
            if lifted || down >= maxFingers || window.microseconds == 0 { state = .committed }
        case .landing, .settled:
            fingers = max(fingers, down)
            currentFingers = fingers
            if lifted || fingers >= maxFingers || moved >= Self.committedDistance { state = .committed }
        case .committed:
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
        if state == .landing { state = .settled }
    }

    /// Why a finger landing now does not belong to the gesture: one had lifted, or the count
    /// was committed (how long after the first landing).
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

extension FingerSettling {
    /// The failures of a kind that lets its fingers settle (pan, swipe, shape).
    static let failures: [(check: FailureCheck, key: ParameterKey?)] = [
        (.landedAfterSettling, .settle), (.liftedBeforeSettling, .settle), (.landedAfterLift, nil),
    ]
}
