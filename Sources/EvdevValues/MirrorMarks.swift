/// How a passthrough mirror (docs/PASSTHROUGH.md) is told from the panel it mirrors, whichever
/// gestured process made it: its name ends in ``nameSuffix`` and its phys starts with
/// ``physPrefix``. VirtualDevices' `PassthroughMirror` gives a mirror both; TouchInput's discovery
/// never takes a device with either, or the daemon would read its own output.
public enum MirrorMarks {
    /// Appended to the panel's name to name its mirror; the udev rules recognise mirrors by it
    /// too (udev-rules/70-gestured.rules).
    public static let nameSuffix = " (gestured passthrough)"
    /// The start of a mirror's phys (EVIOCGPHYS, sysfs `phys`), followed by the panel's phys or
    /// node's name (`event5`): a marker that does not depend on the name.
    public static let physPrefix = "gestured-passthrough/"

    /// Whether a device with this name and phys is a passthrough mirror.
    public static func isMirror(name: String, phys: String?) -> Bool {
        name.hasSuffix(nameSuffix) || phys?.hasPrefix(physPrefix) == true
    }
}
