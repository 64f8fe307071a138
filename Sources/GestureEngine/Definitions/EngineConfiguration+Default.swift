extension EngineConfiguration {
    /// The built-in set (`gestured config --default`), used when no configuration is given.
    ///
    /// Relations, chosen so that each real gesture yields that gesture (docs/ARBITRATION.md,
    /// "The default set"):
    /// - `tap` requires `double-tap` to fail (R4): two quick taps give one `double-tap` and no
    ///   `tap`; a single tap is reported when the double tap gives up (max-gap later), with its
    ///   own time and position.
    /// - `pan` is simultaneous with `swipe`, `pinch`, `rotate` and `circle` (R6): a quick stroke
    ///   gives a `swipe` at the lift while the pan runs, a drawn circle gives `circle`, and a pan's
    ///   centroid drift never blocks a pinch. `swipe` is simultaneous with `pinch` and `rotate`,
    ///   `pinch` with `rotate` (a pinch shows rotate only when the fingers really turn).
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
                name: "swipe", parameters: .swipe(SwipeParameters()), simultaneousWith: ["pinch", "rotate"]),
            RecognizerSpec(name: "pinch", parameters: .pinch(PinchParameters()), simultaneousWith: ["rotate"]),
            RecognizerSpec(name: "rotate", parameters: .rotate(RotateParameters())),
            RecognizerSpec(name: "edge-swipe", parameters: .edgeSwipe(EdgeSwipeParameters()), preempts: ["pan"]),
            RecognizerSpec(name: "circle", parameters: .shape(ShapeParameters())),
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
