import TouchValues

/// A clockwise rotation of the panel, applied after calibration.
///
/// The mappings are those of libinput's documented calibration matrices for the same rotations
/// (90°: `0 -1 1 1 0 0`), so a configured rotation and an equivalent `LIBINPUT_CALIBRATION_MATRIX`
/// agree.
public enum Rotation: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case none = 0
    case clockwise90 = 90
    case clockwise180 = 180
    case clockwise270 = 270

    /// The degrees a configuration may write, for errors: "0, 90, 180 or 270".
    public static let expected: String = {
        let degrees = allCases.map { "\($0.rawValue)" }
        return degrees.dropLast().joined(separator: ", ") + " or " + degrees.last!
    }()

    /// Whether the rotation exchanges the panel's width and height.
    public var swapsAxes: Bool {
        switch self {
        case .none, .clockwise180: false
        case .clockwise90, .clockwise270: true
        }
    }

    /// The rotation as an affine matrix on surface coordinates.
    public var matrix: CalibrationMatrix {
        switch self {
        case .none: .identity
        case .clockwise90: CalibrationMatrix(0, -1, 1, 1, 0, 0)
        case .clockwise180: CalibrationMatrix(-1, 0, 1, 0, -1, 1)
        case .clockwise270: CalibrationMatrix(0, 1, 0, -1, 0, 1)
        }
    }

    public var description: String { "\(rawValue)°" }
}

/// A libinput-style calibration matrix: the top two rows of a 3×3 affine transform on surface
/// coordinates (0…1), `x' = a·x + b·y + c`, `y' = d·x + e·y + f`.
public struct CalibrationMatrix: Hashable, Sendable, CustomStringConvertible {
    public var a, b, c, d, e, f: Double

    public init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) {
        (self.a, self.b, self.c, self.d, self.e, self.f) = (a, b, c, d, e, f)
    }

    public static let identity = CalibrationMatrix(1, 0, 0, 0, 1, 0)

    /// What a written matrix must be, for errors.
    public static let expected = "6 numbers (a 2×3 matrix, row by row)"

    /// The matrix as the configuration file writes it, row by row.
    public var values: [Double] { [a, b, c, d, e, f] }

    /// Six finite numbers, as an array (the configuration file's form); nil otherwise.
    public init?(_ values: [Double]) {
        guard values.count == 6, values.allSatisfy(\.isFinite) else { return nil }
        self.init(values[0], values[1], values[2], values[3], values[4], values[5])
    }

    /// Parses udev's `LIBINPUT_CALIBRATION_MATRIX` ("1 0 0 0 1 0", whitespace separated); nil when
    /// it is not six finite numbers.
    public init?(udevProperty text: String) {
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { Double($0) }
        guard numbers.count == 6, numbers.allSatisfy({ $0?.isFinite ?? false }) else { return nil }
        self.init(numbers.map { $0! })
    }

    /// `self` applied after `first`.
    public func after(_ first: CalibrationMatrix) -> CalibrationMatrix {
        CalibrationMatrix(
            a * first.a + b * first.d, a * first.b + b * first.e, a * first.c + b * first.f + c,
            d * first.a + e * first.d, d * first.b + e * first.e, d * first.c + e * first.f + f)
    }

    func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        (a * x + b * y + c, d * x + e * y + f)
    }

    /// Whether this is the identity (nothing to apply).
    public var isIdentity: Bool { self == .identity }

    public var description: String { "\(a) \(b) \(c) \(d) \(e) \(f)" }
}

/// Device units → surface coordinates: normalise each axis by its absinfo range (min → 0,
/// max → 1), apply the calibration matrix, then the rotation, and clamp to 0…1.
///
/// Clamping keeps hit-testing sane on panels that report past their announced range (libinput's
/// "touchscreen-invalid-range" test device does); the far edges map exactly to 0 and 1 so edge
/// swipes start on the edge.
public struct CoordinateMapper: Hashable, Sendable {
    public let xAxis: AbsInfo
    public let yAxis: AbsInfo
    public let calibration: CalibrationMatrix
    public let rotation: Rotation
    private let transform: CalibrationMatrix
    private let xOffset: Double
    private let yOffset: Double
    private let xScale: Double
    private let yScale: Double

    public init(xAxis: AbsInfo, yAxis: AbsInfo, calibration: CalibrationMatrix = .identity, rotation: Rotation = .none)
    {
        self.xAxis = xAxis
        self.yAxis = yAxis
        self.calibration = calibration
        self.rotation = rotation
        transform = rotation.matrix.after(calibration)
        xOffset = Double(xAxis.minimum)
        yOffset = Double(yAxis.minimum)
        // A zero or negative range (broken descriptions) maps everything to 0 instead of dividing by 0.
        xScale = xAxis.range > 0 ? 1 / Double(xAxis.range) : 0
        yScale = yAxis.range > 0 ? 1 / Double(yAxis.range) : 0
    }

    /// The surface position of a device position.
    @inlinable public func surfacePoint(_ p: DevicePoint) -> SurfacePoint {
        surfacePoint(x: p.x, y: p.y)
    }

    /// The surface position of a device position given as two axis values.
    public func surfacePoint(x: Int32, y: Int32) -> SurfacePoint {
        let nx = (Double(x) - xOffset) * xScale
        let ny = (Double(y) - yOffset) * yScale
        let t = transform.apply(x: nx, y: ny)
        return SurfacePoint(x: min(max(t.x, 0), 1), y: min(max(t.y, 0), 1))
    }

    /// The device position that maps to a surface position (before clamping); used to drive
    /// virtual devices from surface-space scripts. Calibration is not inverted (virtual devices
    /// are never calibrated); rotation is.
    public func devicePoint(_ p: SurfacePoint) -> DevicePoint {
        let inverse = Rotation(rawValue: (360 - rotation.rawValue) % 360)!.matrix
        let n = inverse.apply(x: p.x, y: p.y)
        let x = Double(xAxis.minimum) + n.x * Double(xAxis.range)
        let y = Double(yAxis.minimum) + n.y * Double(yAxis.range)
        return DevicePoint(x: Int32(clamping: Int64(x.rounded())), y: Int32(clamping: Int64(y.rounded())))
    }
}
