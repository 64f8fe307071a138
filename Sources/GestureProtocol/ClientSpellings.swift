import GestureEngine

// The Swift client library's spellings of 0.1.0, when a message held plain numbers (`timeUS`,
// `sizeMM`, `XY`, touch ids as `UInt32`): kept, deprecated, so that a client written against
// them still builds. A value whose type changed under the same name (`position`, `translation`,
// `velocity` and their `…MM`, `touches`, and `TouchMessage.touch`, now the whole `Touch`) cannot
// keep both spellings: docs/PROTOCOL.md, "The Swift client library", says what each became.

extension GestureMessage {
    /// The message with 0.1.0's plain values.
    @available(*, deprecated, message: "use init(seq:device:report:) with a GestureReport")
    public init(
        seq: UInt64, name: String, kind: GestureKind, state: GestureState, fingers: Int, touches: [UInt32],
        device: String, region: String, timeUS: Int64, position: XY, positionMM: XY? = nil,
        translation: XY = XY(x: 0, y: 0), translationMM: XY? = nil, velocity: XY = XY(x: 0, y: 0),
        velocityMM: XY? = nil, scale: Double? = nil, rotation: Double? = nil, scaleVelocity: Double? = nil,
        rotationVelocity: Double? = nil, direction: Direction? = nil, edge: Edge? = nil, shape: String? = nil,
        score: Double? = nil
    ) {
        var report = GestureReport(
            name: name, kind: kind, state: state, region: region, fingers: fingers,
            touches: TouchIDList(touches.map { TouchID($0) }), time: Timestamp(microseconds: timeUS),
            position: SurfacePoint(x: position.x, y: position.y))
        report.positionMM = positionMM.map { PhysicalPoint(x: Millimeters($0.x), y: Millimeters($0.y)) }
        report.translation = SurfaceVector(dx: translation.x, dy: translation.y)
        report.translationMM = translationMM.map { PhysicalVector(dx: Millimeters($0.x), dy: Millimeters($0.y)) }
        report.velocity = SurfaceVector(dx: velocity.x, dy: velocity.y)
        report.velocityMM = velocityMM.map { PhysicalVector(dx: Millimeters($0.x), dy: Millimeters($0.y)) }
        report.scale = scale
        report.rotation = rotation
        report.scaleVelocity = scaleVelocity
        report.rotationVelocity = rotationVelocity
        report.direction = direction
        report.edge = edge
        report.shape = shape
        report.score = score
        self.init(seq: seq, device: device, report: report)
    }

    /// `time_us`.
    @available(*, deprecated, message: "use time.microseconds")
    public var timeUS: Int64 {
        get { report.time.microseconds }
        set { report.time = Timestamp(microseconds: newValue) }
    }
}

extension TouchMessage {
    /// The message with 0.1.0's plain values.
    @available(*, deprecated, message: "use init(seq:device:region:time:touch:positionMM:) with a Touch")
    public init(
        seq: UInt64, device: String, region: String, touch: UInt32, phase: TouchPhase, timeUS: Int64,
        position: XY, positionMM: XY? = nil, tool: ToolType = .finger, sizeMM: Double? = nil, pressure: Double? = nil
    ) {
        self.init(
            seq: seq, device: device, region: region, time: Timestamp(microseconds: timeUS),
            touch: Touch(
                id: TouchID(touch), phase: phase, position: SurfacePoint(x: position.x, y: position.y), tool: tool,
                contactSize: sizeMM.map { Millimeters($0) }, pressure: pressure),
            positionMM: positionMM.map { PhysicalPoint(x: Millimeters($0.x), y: Millimeters($0.y)) })
    }

    /// `time_us`.
    @available(*, deprecated, message: "use time.microseconds")
    public var timeUS: Int64 {
        get { time.microseconds }
        set { time = Timestamp(microseconds: newValue) }
    }

    /// `size_mm`.
    @available(*, deprecated, message: "use contactSize?.value")
    public var sizeMM: Double? {
        get { touch.contactSize?.value }
        set { touch.contactSize = newValue.map { Millimeters($0) } }
    }
}

extension Subscription {
    /// Whether the `gesture` message of `g`, on the device labelled `device`, would pass these
    /// filters.
    @available(*, deprecated, message: "use matches(g.report, device:)")
    public func matches(_ g: GestureEvent, device: String) -> Bool {
        matches(g.report, device: device)
    }
}
