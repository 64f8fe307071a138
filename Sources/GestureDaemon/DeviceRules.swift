import TouchInput

extension DaemonConfiguration {
    /// The `devices` entries as TouchInput's rules (the first whose match selects a device applies).
    public var deviceRules: [DeviceRule] {
        devices.map { entry in
            let ids = entry.match.usb.flatMap(DeviceMatch.parseVendorProduct)
            return DeviceRule(
                match: DeviceMatch(
                    name: entry.match.name, vendor: ids?.vendor, product: ids?.product, path: entry.match.path),
                settings: DeviceSettings(
                    enabled: entry.enabled, rotation: Rotation(rawValue: entry.rotation) ?? .none, size: entry.size,
                    calibration: entry.calibration.flatMap(CalibrationMatrix.init),
                    forceTouchscreen: entry.forceTouchscreen, passthrough: entry.passthrough))
        }
    }
}
