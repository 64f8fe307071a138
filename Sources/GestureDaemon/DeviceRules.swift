import TouchInput

extension DaemonConfiguration {
    /// The `devices` entries as TouchInput's rules (the first whose match selects a device applies):
    /// the values were decoded into TouchInput's own types, checked there, so nothing is parsed
    /// again here.
    public var deviceRules: [DeviceRule] {
        devices.map { entry in
            DeviceRule(
                match: DeviceMatch(name: entry.match.name, usb: entry.match.usb, path: entry.match.path),
                settings: DeviceSettings(
                    enabled: entry.enabled, rotation: entry.rotation, size: entry.size, calibration: entry.calibration,
                    forceTouchscreen: entry.forceTouchscreen, passthrough: entry.passthrough))
        }
    }
}
