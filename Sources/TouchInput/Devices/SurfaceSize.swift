import EvdevValues
import TouchValues

/// Where a device's physical size came from.
public enum SizeSource: String, Hashable, Sendable, CustomStringConvertible {
    /// A device setting in the configuration.
    case configuration
    /// The absinfo resolution of the position axes (units per mm).
    case resolution
    /// udev's `ID_INPUT_WIDTH_MM` / `ID_INPUT_HEIGHT_MM`.
    case udev
    /// Nothing trustworthy: thresholds use the engine's assumed size.
    case unknown

    public var description: String { rawValue }
}

/// The physical size of a panel and how it was decided, with the candidates that were rejected.
///
/// Sources in order: configuration, absinfo resolution, udev properties. A candidate is rejected
/// when either side is outside ``plausibleSide`` or the long side is more than
/// ``maximumAspect`` times the short one: a resolution of 1 on a 0…32767 axis claims a 33 m panel,
/// and no kiosk is narrower than a phone or wider than 100".
public struct SurfaceSize: Hashable, Sendable {
    /// Smallest and largest plausible side of a touch panel.
    public static let plausibleSide = Millimeters(20)...Millimeters(2500)
    /// Largest plausible long/short side ratio (32:9 is 3.6).
    public static let maximumAspect = 4.0

    /// The geometry the engine gets (after rotation).
    public var geometry: SurfaceGeometry
    public var source: SizeSource
    /// Candidates that failed the sanity rules, as sentences for logs and `gestured devices`.
    public var rejected: [String]

    /// Decides the size of a panel whose position axes are `xAxis`/`yAxis`.
    public init(
        xAxis: AbsInfo, yAxis: AbsInfo, configured: PhysicalSize?, udevWidth: Double?, udevHeight: Double?,
        rotation: Rotation
    ) {
        var rejected: [String] = []
        var chosen: (PhysicalSize, SizeSource)?
        var candidates: [(PhysicalSize, SizeSource)] = []
        if let configured { candidates.append((configured, .configuration)) }
        if xAxis.resolution > 0 && yAxis.resolution > 0 {
            candidates.append(
                (
                    PhysicalSize(
                        width: Millimeters(Double(xAxis.range) / Double(xAxis.resolution)),
                        height: Millimeters(Double(yAxis.range) / Double(yAxis.resolution))),
                    .resolution
                ))
        }
        if let w = udevWidth, let h = udevHeight {
            candidates.append((PhysicalSize(width: Millimeters(w), height: Millimeters(h)), .udev))
        }
        for (size, source) in candidates {
            if let problem = Self.implausibility(of: size) {
                rejected.append("\(source) size \(Self.format(size)) rejected: \(problem)")
                continue
            }
            chosen = (size, source)
            break
        }
        if let (size, source) = chosen {
            let rotated =
                rotation.swapsAxes ? PhysicalSize(width: size.height, height: size.width) : size
            geometry = SurfaceGeometry(physicalSize: rotated)
            self.source = source
        } else {
            let xr = max(Double(xAxis.range), 1)
            let yr = max(Double(yAxis.range), 1)
            let aspect = rotation.swapsAxes ? xr / yr : yr / xr
            geometry = SurfaceGeometry(unknownSizeWithAspect: aspect)
            source = .unknown
        }
        self.rejected = rejected
    }

    /// Why `size` cannot be a touch panel, or nil when it can.
    public static func implausibility(of size: PhysicalSize) -> String? {
        let w = size.width.value
        let h = size.height.value
        guard w.isFinite && h.isFinite else { return "not a number" }
        guard plausibleSide.contains(size.width) && plausibleSide.contains(size.height) else {
            return "each side must be \(Int(plausibleSide.lowerBound.value))–\(Int(plausibleSide.upperBound.value)) mm"
        }
        guard max(w, h) / min(w, h) <= maximumAspect else { return "aspect ratio above \(Int(maximumAspect)):1" }
        return nil
    }

    /// `344×194 mm`.
    public static func format(_ size: PhysicalSize) -> String {
        "\(Int(size.width.value.rounded()))×\(Int(size.height.value.rounded())) mm"
    }
}
