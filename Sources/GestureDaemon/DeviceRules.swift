import GestureEngine
import TouchInput

extension DaemonConfiguration {
    /// The `devices` entries as TouchInput's rules (the first whose match selects a device applies):
    /// the values were decoded into TouchInput's own types, checked there, so nothing is parsed
    /// again here.
    ///
    /// The top-level `idle-after-ms`, `wake-after-idle` and `stuck-contact` apply to every panel
    /// whose entry does not give its own, and to panels no entry selects (a last rule that selects
    /// every device, when any of them is set).
    public var deviceRules: [DeviceRule] {
        var rules = devices.map { entry in
            DeviceRule(
                match: DeviceMatch(name: entry.match.name, usb: entry.match.usb, path: entry.match.path),
                settings: DeviceSettings(
                    enabled: entry.enabled, rotation: entry.rotation, size: entry.size, calibration: entry.calibration,
                    forceTouchscreen: entry.forceTouchscreen, passthrough: entry.passthrough,
                    panel: PanelSettings(
                        deadZones: entry.ignore, stuckContact: entry.stuckContact ?? panels.stuckContact,
                        idleAfter: (entry.idleAfterMS ?? panels.idleAfterMS).map { .milliseconds(Int64($0)) },
                        wakeAfterIdle: entry.wakeAfterIdle ?? panels.wakeAfterIdle),
                    screen: entry.screen))
        }
        if panels != PanelDefaults() {
            rules.append(
                DeviceRule(
                    match: DeviceMatch(),
                    settings: DeviceSettings(
                        panel: PanelSettings(
                            stuckContact: panels.stuckContact,
                            idleAfter: panels.idleAfterMS.map { .milliseconds(Int64($0)) },
                            wakeAfterIdle: panels.wakeAfterIdle))))
        }
        return rules
    }
}
