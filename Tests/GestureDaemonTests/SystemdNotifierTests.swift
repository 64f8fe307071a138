import Glibc
import Testing

@testable import GestureDaemon

@Suite("sd_notify")
struct SystemdNotifierTests {
    @Test("without NOTIFY_SOCKET nothing is sent and no watchdog runs")
    func disabled() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        #expect(notifier.watchdogInterval == nil)
        notifier.ready(status: "ignored")
    }

    @Test("the watchdog interval is half of WATCHDOG_USEC, only for our pid")
    func watchdogInterval() {
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "10000000"]).watchdogInterval == 5_000_000)
        let other = SystemdNotifier(environment: ["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "\(getpid() + 1)"])
        #expect(other.watchdogInterval == nil)
    }

    @Test("READY=1 reaches a datagram socket at NOTIFY_SOCKET")
    func readyDatagram() throws {
        let path = "/tmp/gestured-notify-\(getpid()).sock"
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(fd >= 0)
        defer {
            close(fd)
            unlink(path)
        }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { p in
            for (i, b) in path.utf8.enumerated() { p[i] = b }
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
        SystemdNotifier(environment: ["NOTIFY_SOCKET": path]).ready(status: "2 touchscreens")
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        try #require(n > 0)
        #expect(String(decoding: buffer[..<n], as: UTF8.self) == "READY=1\nSTATUS=2 touchscreens")
    }
}
