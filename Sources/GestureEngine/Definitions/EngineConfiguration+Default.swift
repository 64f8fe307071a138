extension EngineConfiguration {
    /// The built-in set (`gestured config --default`), used when no configuration is given.
    ///
    /// Relations, chosen so that each real gesture yields that gesture (docs/ARBITRATION.md,
    /// "The default set"):
    /// - `tap` requires `double-tap` to fail (R4): two quick taps give one `double-tap` and no
    ///   `tap`; a single tap is reported when the double tap gives up (max-gap later), with its
    ///   own time and position.
    /// - `pan` is simultaneous with `swipe`, `pinch`, `rotate` and `circle` (R6): a quick stroke
    ///   gives a `swipe` while the pan runs, a drawn circle gives `circle`, and a pan's centroid
    ///   drift never blocks a pinch. `swipe` is simultaneous with `pinch`, `rotate` and
    ///   `edge-swipe` (a swipe across the panel that starts on its edge is both), `pinch` with
    ///   `rotate` (a pinch shows rotate only when the fingers really turn).
    /// - `swipe` requires `circle` to fail (R4): every drawn circle starts with a quick straight
    ///   stretch. The circle fails on a straight run of 100 mm or at the lift; the swipe is then
    ///   reported with the time and place it was recognized.
    /// - `circle` (1–5 fingers) preempts `pinch` and `rotate` (R5): two fingers circling together
    ///   change their spread and turn about each other on the way; the circle cancels those.
    /// - `edge-swipe` preempts `pan` (R5): a stroke from the edge cancels the pan that began a
    ///   few millimetres earlier.
    /// - `long-press` is exclusive with everything: once it began, a pan cannot start (R5).
    ///
    /// Thresholds are the defaults of each kind's parameters; docs/RECOGNIZERS.md gives their
    /// public sources and their values in surface units on a panel of unknown size.
    public static let `default` = EngineConfiguration(
        regions: [],
        recognizers: [
            RecognizerSpec(name: "tap", parameters: .tap(TapParameters()), requiresFailureOf: ["double-tap"]),
            RecognizerSpec(name: "double-tap", parameters: tap(taps: 2)),
            RecognizerSpec(name: "two-finger-tap", parameters: tap(fingers: 2)),
            RecognizerSpec(name: "long-press", parameters: .longPress(LongPressParameters())),
            RecognizerSpec(
                name: "pan", parameters: .pan(PanParameters()),
                simultaneousWith: ["swipe", "pinch", "rotate", "circle"]),
            RecognizerSpec(
                name: "swipe", parameters: .swipe(SwipeParameters()), requiresFailureOf: ["circle"],
                simultaneousWith: ["pinch", "rotate", "edge-swipe"]),
            RecognizerSpec(name: "pinch", parameters: .pinch(PinchParameters()), simultaneousWith: ["rotate"]),
            RecognizerSpec(name: "rotate", parameters: .rotate(RotateParameters())),
            RecognizerSpec(name: "edge-swipe", parameters: .edgeSwipe(EdgeSwipeParameters()), preempts: ["pan"]),
            RecognizerSpec(name: "circle", parameters: circle(), preempts: ["pinch", "rotate"]),
        ]
    )
}

/// Tap parameters with the defaults except for the counts.
private func tap(taps: Int = 1, fingers: Int = 1) -> RecognizerParameters {
    var p = TapParameters()
    p.taps = taps
    p.fingers = fingers
    return .tap(p)
}

/// The built-in circle, drawn with one to five fingers.
private func circle() -> RecognizerParameters {
    var p = ShapeParameters()
    p.maxFingers = 5
    return .shape(p)
}
