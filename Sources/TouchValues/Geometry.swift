// Three coordinate spaces, each its own type so they cannot be mixed by accident (libinput does
// the same with its device/normalized/physical coordinates):
// - device units: what the kernel reports on ABS_MT_POSITION_X/Y (``DevicePoint``);
// - surface coordinates: 0…1 on both axes, origin top-left, after calibration and rotation
//   (``SurfacePoint``, ``SurfaceVector``, ``SurfaceRect``);
// - millimetres on the glass, when the physical size is known (``Millimeters``,
//   ``PhysicalPoint``, ``PhysicalVector``, ``PhysicalSize``).

/// A position in the device's own units, as the kernel reports it.
public struct DevicePoint: Hashable, Sendable {
    public var x: Int32
    public var y: Int32
    @inlinable public init(x: Int32, y: Int32) { self.x = x; self.y = y }
}

/// A position on the touch surface: 0…1 on both axes, origin top-left, so `y` grows downwards.
public struct SurfacePoint: Hashable, Sendable {
    public var x: Double
    public var y: Double
    @inlinable public init(x: Double, y: Double) { self.x = x; self.y = y }

    @inlinable public static func - (lhs: SurfacePoint, rhs: SurfacePoint) -> SurfaceVector {
        SurfaceVector(dx: lhs.x - rhs.x, dy: lhs.y - rhs.y)
    }

    @inlinable public static func + (lhs: SurfacePoint, rhs: SurfaceVector) -> SurfacePoint {
        SurfacePoint(x: lhs.x + rhs.dx, y: lhs.y + rhs.dy)
    }
}

/// A displacement (or a velocity, per second) in surface units.
public struct SurfaceVector: Hashable, Sendable {
    public var dx: Double
    public var dy: Double
    @inlinable public init(dx: Double, dy: Double) { self.dx = dx; self.dy = dy }
    public static let zero = SurfaceVector(dx: 0, dy: 0)

    @inlinable public static func + (lhs: SurfaceVector, rhs: SurfaceVector) -> SurfaceVector {
        SurfaceVector(dx: lhs.dx + rhs.dx, dy: lhs.dy + rhs.dy)
    }

    @inlinable public static func * (lhs: SurfaceVector, rhs: Double) -> SurfaceVector {
        SurfaceVector(dx: lhs.dx * rhs, dy: lhs.dy * rhs)
    }
}

/// A rectangle in surface coordinates (regions, start areas).
public struct SurfaceRect: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    @inlinable public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// The whole surface.
    public static let unit = SurfaceRect(x: 0, y: 0, width: 1, height: 1)

    /// Half-open on the far edges, except that the surface's own far edges (1.0) are inside.
    @inlinable public func contains(_ p: SurfacePoint) -> Bool {
        p.x >= x && p.y >= y && (p.x < x + width || (x + width >= 1 && p.x <= 1))
            && (p.y < y + height || (y + height >= 1 && p.y <= 1))
    }
}

/// A length on the glass.
public struct Millimeters: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var value: Double
    @inlinable public init(_ value: Double) { self.value = value }
    @inlinable public static func < (lhs: Millimeters, rhs: Millimeters) -> Bool { lhs.value < rhs.value }
    public var description: String { "\(value) mm" }
}

/// A position on the glass in millimetres from the top-left corner.
public struct PhysicalPoint: Hashable, Sendable {
    public var x: Millimeters
    public var y: Millimeters
    @inlinable public init(x: Millimeters, y: Millimeters) { self.x = x; self.y = y }
}

/// A displacement (or a velocity, per second) in millimetres.
public struct PhysicalVector: Hashable, Sendable {
    public var dx: Millimeters
    public var dy: Millimeters
    @inlinable public init(dx: Millimeters, dy: Millimeters) { self.dx = dx; self.dy = dy }
}

/// The size of the touch surface on the glass.
public struct PhysicalSize: Hashable, Sendable {
    public var width: Millimeters
    public var height: Millimeters
    @inlinable public init(width: Millimeters, height: Millimeters) { self.width = width; self.height = height }
}

/// How surface coordinates map to millimetres on one device.
///
/// Thresholds are in millimetres. Many real panels report resolution 0 and no size, so when the
/// size is unknown the engine measures against ``assumedSize`` instead: a documented nominal
/// panel (docs/CONFIGURATION.md), whose aspect follows the device's axis ranges. Reported
/// positions in millimetres are then absent rather than invented.
public struct SurfaceGeometry: Hashable, Sendable {
    /// The real size, when the panel (resolution, udev, or the config) says it.
    public var physicalSize: PhysicalSize?
    /// The size thresholds are measured against: the real size, or the nominal fallback.
    public var measuringSize: PhysicalSize

    /// The nominal width of a panel whose size is unknown: a 15.6" 16:9 kiosk panel is 344 mm wide.
    public static let assumedWidth = Millimeters(344)

    /// A device whose physical size is known.
    public init(physicalSize: PhysicalSize) {
        self.physicalSize = physicalSize
        self.measuringSize = physicalSize
    }

    /// A device whose physical size is unknown; `aspect` is height / width of its axis ranges.
    public init(unknownSizeWithAspect aspect: Double) {
        self.physicalSize = nil
        let width = Self.assumedWidth.value
        self.measuringSize = PhysicalSize(width: Self.assumedWidth, height: Millimeters(width * aspect))
    }

    /// A displacement on the surface measured in millimetres (against the real or assumed size).
    @inlinable public func measure(_ v: SurfaceVector) -> PhysicalVector {
        PhysicalVector(
            dx: Millimeters(v.dx * measuringSize.width.value), dy: Millimeters(v.dy * measuringSize.height.value))
    }

    /// The length of a surface displacement in millimetres (against the real or assumed size).
    @inlinable public func length(_ v: SurfaceVector) -> Millimeters {
        let dx = v.dx * measuringSize.width.value
        let dy = v.dy * measuringSize.height.value
        return Millimeters((dx * dx + dy * dy).squareRoot())
    }

    /// The position on the glass, only when the real size is known.
    @inlinable public func physical(_ p: SurfacePoint) -> PhysicalPoint? {
        guard let size = physicalSize else { return nil }
        return PhysicalPoint(x: Millimeters(p.x * size.width.value), y: Millimeters(p.y * size.height.value))
    }

    /// A displacement on the glass, only when the real size is known.
    @inlinable public func physical(_ v: SurfaceVector) -> PhysicalVector? {
        guard physicalSize != nil else { return nil }
        return measure(v)
    }
}
