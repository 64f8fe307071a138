#if canImport(Glibc)
import Glibc
#endif

/// sd_notify(3) without libsystemd: one datagram per state change to `$NOTIFY_SOCKET`
/// (a path, or an abstract name starting with `@`). Does nothing when the variable is unset,
/// i.e. when not started by systemd with `Type=notify`.
public struct SystemdNotifier: Sendable {
    private let address: [UInt8]?
    /// Half of `$WATCHDOG_USEC` (systemd's advice), when the service has a watchdog for us.
    public let watchdogInterval: Int64?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`.
    public init(environment: [String: String]) {
        if let socket = environment["NOTIFY_SOCKET"], !socket.isEmpty, socket.utf8.count < 108 {
            var bytes = Array(socket.utf8)
            if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
            address = bytes
        } else {
            address = nil
        }
        let pidMatches = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if pidMatches, let usec = environment["WATCHDOG_USEC"].flatMap(Int64.init), usec > 0 {
            watchdogInterval = usec / 2
        } else {
            watchdogInterval = nil
        }
    }

    /// Whether systemd listens.
    public var isEnabled: Bool { address != nil }

    /// `READY=1` once the socket is bound and devices are open.
    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    /// `RELOADING=1` while a SIGHUP reload runs; follow with `ready`.
    public func reloading() { send("RELOADING=1") }
    public func stopping() { send("STOPPING=1") }
    public func watchdog() { send("WATCHDOG=1") }
    public func status(_ text: String) { send("STATUS=\(text)") }

    private func send(_ message: String) {
        guard let address else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { path in
            for (i, byte) in address.enumerated() { path[i] = byte }
        }
        // An abstract address's length counts its bytes exactly (no terminating NUL).
        let length = socklen_t(MemoryLayout<sa_family_t>.size + address.count + (address.first == 0 ? 0 : 1))
        var payload = Array(message.utf8)
        _ = withUnsafePointer(to: &addr) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                sendto(fd, &payload, payload.count, Int32(MSG_NOSIGNAL), sa, length)
            }
        }
    }
}
