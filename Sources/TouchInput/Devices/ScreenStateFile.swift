import Glibc

/// Where the kernel says whether a panel's screen is on (`devices[].screen`, docs/CONFIGURATION.md):
/// a DRM connector's `dpms` (`On`, `Standby`, `Suspend`, `Off`), a backlight's `bl_power` (0 is
/// FB_BLANK_UNBLANK, anything else blank) or its `brightness` (0 is dark). Any path: sysfs, or a
/// file a script keeps (the tests' fake `dpms`).
///
/// Read at a touch's landing after a quiet moment, never polled (the daemon's `ScreenWatch`): one
/// `open`, one `read` of at most ``readLimit`` bytes, one `close`.
public struct ScreenStateFile: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case dpms
        case blPower = "bl-power"
        case brightness
    }

    public var kind: Kind
    public var path: String

    public init(kind: Kind, path: String) {
        self.kind = kind
        self.path = path
    }

    /// What a reading says.
    public enum Reading: Hashable, Sendable {
        case on
        case off
        /// The file could not be read, or says something of another kind (the reason).
        case unknown(String)
    }

    /// More than any of the three files holds (`Standby\n` is the longest).
    public static let readLimit = 32

    /// The file's state now.
    public func read() -> Reading {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .unknown("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: Self.readLimit)
        var count = 0
        repeat {
            count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        } while count < 0 && errno == EINTR
        guard count >= 0 else { return .unknown("cannot read \(path): \(String(cString: strerror(errno)))") }
        return parse(buffer[..<count])
    }

    /// What is wrong with ``path`` on this system (nil: nothing): it must name a file the daemon
    /// can read — a sysfs attribute, or a file a script keeps — not a FIFO, a device, a directory
    /// or a socket, whose read may wait for a writer or never end. Looked at where the
    /// configuration is checked (`check-config`, the start, a reload), never on the input thread.
    public func problem() -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return "cannot use \(path) as the screen's \(kind.rawValue) file: \(String(cString: strerror(errno)))"
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else {
            let what =
                switch type {
                case S_IFIFO: "a FIFO"
                case S_IFCHR: "a character device"
                case S_IFBLK: "a block device"
                case S_IFDIR: "a directory"
                case S_IFSOCK: "a socket"
                default: "not a regular file"
                }
            return "\(path) is \(what), not a file the screen's state can be read from "
                + "(a sysfs attribute such as /sys/class/drm/card1-HDMI-A-1/dpms, or a file a script keeps)"
        }
        guard access(path, R_OK) == 0 else {
            return "cannot read \(path) (the screen's \(kind.rawValue) file): \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// What `bytes`, the file's contents, say.
    public func parse(_ bytes: some Collection<UInt8>) -> Reading {
        let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
        switch kind {
        case .dpms:
            switch text {
            case "On": return .on
            case "Off", "Standby", "Suspend": return .off
            default: return .unknown("\(path) says '\(text)', not On, Standby, Suspend or Off")
            }
        case .blPower:
            guard let value = Int(text), value >= 0 else {
                return .unknown("\(path) says '\(text)', not a bl_power value (0 on, 1…4 blank)")
            }
            return value == 0 ? .on : .off
        case .brightness:
            guard let value = Int(text), value >= 0 else {
                return .unknown("\(path) says '\(text)', not a brightness (0 dark)")
            }
            return value == 0 ? .off : .on
        }
    }

    /// `dpms /sys/class/drm/card1-DSI-1/dpms`.
    public var description: String { "\(kind.rawValue) \(path)" }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
