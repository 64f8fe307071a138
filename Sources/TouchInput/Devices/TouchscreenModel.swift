import EvdevValues
import TouchValues

/// What udev knows about a device beyond its capabilities (all nil without udevd).
public struct UdevHints: Hashable, Sendable {
    /// `ID_INPUT_WIDTH_MM` / `ID_INPUT_HEIGHT_MM`.
    public var widthMM: Double?
    public var heightMM: Double?
    /// `LIBINPUT_CALIBRATION_MATRIX`, as written.
    public var calibrationMatrix: String?

    public init(widthMM: Double? = nil, heightMM: Double? = nil, calibrationMatrix: String? = nil) {
        self.widthMM = widthMM
        self.heightMM = heightMM
        self.calibrationMatrix = calibrationMatrix
    }
}

/// A device accepted as a touchscreen, with everything decided about it: how it reports contacts,
/// the coordinate pipeline and its size. Built the same way for live devices and recordings.
public struct TouchscreenModel: Hashable, Sendable {
    public let description: DeviceCapabilities
    public let touchProtocol: TouchProtocol
    public let mapper: CoordinateMapper
    public let size: SurfaceSize
    /// Where the calibration came from (`configuration`, `udev`), nil when none applies.
    public let calibrationSource: String?
    /// Problems that did not prevent use (an unparsable calibration property…), for logs.
    public let warnings: [String]

    /// Accepts `description` as a touchscreen or says why not.
    public init(
        description: DeviceCapabilities, settings: DeviceSettings = DeviceSettings(), udev: UdevHints = UdevHints()
    ) throws(SkipReason) {
        guard settings.enabled else { throw .disabledByConfiguration }
        let proto: TouchProtocol
        switch DeviceClassifier.classify(description, forceTouchscreen: settings.forceTouchscreen) {
        case .success(let p): proto = p
        case .failure(let reason): throw reason
        }
        let (xCode, yCode): (UInt16, UInt16) =
            switch proto {
            case .slots, .protocolA: (EventCode.absMTPositionX, EventCode.absMTPositionY)
            case .singleTouch: (EventCode.absX, EventCode.absY)
            }
        // The classifier guarantees both axes exist.
        let x = description.absInfo[xCode]!
        let y = description.absInfo[yCode]!
        for (code, axis) in [(xCode, x), (yCode, y)] where axis.range <= 0 {
            throw .emptyAxisRange(
                axis: EventCode.codeName(type: EventCode.evAbs, code: code), minimum: axis.minimum,
                maximum: axis.maximum)
        }
        var warnings: [String] = []
        var calibration = CalibrationMatrix.identity
        var calibrationSource: String?
        if let configured = settings.calibration {
            calibration = configured
            calibrationSource = "configuration"
        } else if let text = udev.calibrationMatrix {
            if let parsed = CalibrationMatrix(udevProperty: text) {
                calibration = parsed
                calibrationSource = "udev"
            } else {
                warnings.append("LIBINPUT_CALIBRATION_MATRIX '\(text)' is not six numbers; ignored")
            }
        }
        self.description = description
        self.touchProtocol = proto
        self.mapper = CoordinateMapper(xAxis: x, yAxis: y, calibration: calibration, rotation: settings.rotation)
        self.size = SurfaceSize(
            xAxis: x, yAxis: y, configured: settings.size, udevWidth: udev.widthMM, udevHeight: udev.heightMM,
            rotation: settings.rotation)
        self.calibrationSource = calibrationSource
        self.warnings = warnings + size.rejected
    }

    /// What the engine gets for this device.
    public func descriptor(id: DeviceID, label: String) -> DeviceDescriptor {
        DeviceDescriptor(id: id, label: label, name: description.name, geometry: size.geometry)
    }

    /// A frame assembler for this device; `contactsKnown` for live devices (see
    /// ``FrameAssembler/synchronize(_:currentSlot:)``).
    public func makeAssembler(device: DeviceID, contactsKnown: Bool) -> FrameAssembler {
        FrameAssembler(
            device: device, description: description, touchProtocol: touchProtocol, mapper: mapper,
            geometry: size.geometry, contactsKnown: contactsKnown)
    }
}

extension SkipReason: Error {}
