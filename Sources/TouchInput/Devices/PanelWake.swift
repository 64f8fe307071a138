import CLinuxSupport
import Glibc
import Logging
import Synchronization
import TouchValues

/// A panel's screen as the daemon follows it for wakes (`devices[].screen`, docs/CONFIGURATION.md):
/// where the kernel says whether it is on (``ScreenFile``), read off the input thread every
/// ``interval`` (``Reader``, on the daemon's worker), and what a touch landing after a quiet moment
/// takes of it on the input thread: the latest reading, no I/O (``landing(_:)``). What the touch
/// then becomes is the engine's stage before the arena (`ContactGate`, docs/ARBITRATION.md), and
/// what is said of it, on the wire and in the journal, its declaration's (`PanelEventDeclaration`).
///
/// The input thread never opens the file: a hung mount there (NFS, FUSE) would hold every touch.
public struct PanelWake {
    /// How often the file is read (µs): a landing acts on a reading at most this old.
    public static let interval: Int64 = 1_000_000
    /// How long the panel must have said nothing for a landing to take the screen's state (µs): a
    /// touch soon after another finds the screen as the other did (on, or woken by it). Longer than
    /// ``interval``, so the file is read in every quiet moment.
    public static let quiet: Int64 = 2_000_000

    public let device: DeviceID
    public let reader: Reader
    /// The time of the panel's last frame, and whether touches were down after it.
    private var lastFrame = Int64.min
    private var down = false
    /// When a landing last took the screen to be off (a wake).
    private var woke: Int64?

    public init(device: DeviceID, reader: Reader) {
        self.device = device
        self.reader = reader
    }

    /// The frame the panel reported: when it lands a touch after a quiet moment — no touch down,
    /// no report for ``quiet`` — the screen's latest reading, if it was taken since the panel's
    /// previous report (an older one may predate a wake); else nil. After a wake, a reading of off
    /// counts only once the screen has been read on since: until the wake's command has lit it,
    /// the file still says off, and the next touch is not a second wake.
    public mutating func landing(_ frame: TouchFrame) -> ScreenFile.Reading? {
        let previous = lastFrame
        let quiet = !down && (previous == Int64.min || frame.time.microseconds - previous >= Self.quiet)
        lastFrame = frame.time.microseconds
        down = frame.touches.contains { $0.phase.isLive }
        guard quiet, frame.touches.contains(where: { $0.phase == .began }), let latest = reader.latest,
            latest.time > previous, latest.reading != .off || woke.map({ latest.lastOn > $0 }) ?? true
        else { return nil }
        if latest.reading == .off { woke = frame.time.microseconds }
        return latest.reading
    }

    /// Reads one panel's screen file on the daemon's worker, and keeps the latest reading for the
    /// input thread's landings.
    public final class Reader: Sendable {
        public let file: ScreenFile
        private let read: @Sendable () -> ScreenFile.Reading
        /// CLOCK_MONOTONIC µs, the clock of a live panel's frames (tests pass their own).
        private let clock: @Sendable () -> Int64
        private let state = Mutex(State())
        private struct State {
            var latest: (reading: ScreenFile.Reading, time: Int64)?
            /// When the file last said on.
            var lastOn = Int64.min
            /// A read is under way: the next tick queues none behind it (a hung mount holds one).
            var reading = false
            /// Reads in a row that could not tell on from off.
            var failures = 0
        }
        /// Failed reads in a row between two journal lines that say so (10 minutes at
        /// ``PanelWake/interval``): the first is logged, then every one of these.
        public static let failuresPerLine = 600

        public init(
            file: ScreenFile, read: (@Sendable () -> ScreenFile.Reading)? = nil,
            clock: @escaping @Sendable () -> Int64 = { gestured_monotonic_us() }
        ) {
            self.file = file
            self.read = read ?? { file.read() }
            self.clock = clock
        }

        /// The latest reading, when it was taken, and when the file last said on; nil before the
        /// first reading.
        public var latest: (reading: ScreenFile.Reading, time: Int64, lastOn: Int64)? {
            state.withLock { state in state.latest.map { ($0.reading, $0.time, state.lastOn) } }
        }

        /// Whether a tick of the interval's timer should read: false while a read is under way.
        public func claim() -> Bool {
            state.withLock { state in
                defer { state.reading = true }
                return !state.reading
            }
        }

        /// Reads the file (on the worker) and keeps what it says. The journal hears when it cannot
        /// tell (the first time, then every ``failuresPerLine`` reads while that lasts) and when it
        /// can again.
        public func poll(logger: Logger) {
            let reading = read()
            let time = clock()
            let (before, failures) = state.withLock { state in
                let before = state.failures
                state.latest = (reading, time)
                if reading == .on { state.lastOn = time }
                state.reading = false
                if case .unknown = reading { state.failures += 1 } else { state.failures = 0 }
                return (before, state.failures)
            }
            switch reading {
            case .unknown(let why):
                guard (failures - 1) % Self.failuresPerLine == 0 else { return }
                logger.warning(
                    "cannot tell whether the screen is on; taking it as on: \(why)",
                    metadata: ["screen": "\(file)", "reads": "\(failures)"])
            case .on, .off:
                guard before > 0 else { return }
                logger.notice("the screen's state can be read again", metadata: ["screen": "\(file)"])
            }
        }
    }
}

extension PanelWake {
    /// Where the kernel says whether a panel's screen is on: a DRM connector's `dpms` (`On`,
    /// `Standby`, `Suspend`, `Off`), a backlight's `bl_power` (0 is FB_BLANK_UNBLANK, anything else
    /// blank) or its `brightness` (0 is dark). Any path: sysfs, or a file a script keeps (the tests'
    /// fake `dpms`). A read is one `open`, one `read` of at most ``readLimit`` bytes, one `close`.
    public struct ScreenFile: Hashable, Sendable, CustomStringConvertible {
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
            let text = String(decoding: bytes, as: UTF8.self).trimmingSpaces()
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
}
