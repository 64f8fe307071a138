import CLinuxSupport
import GestureEngine
import GestureMetrics
import GestureServer
import Glibc
import TouchInput

/// Makes the ``MetricsSnapshot`` the input thread hands a scrape or a `status` request: its own
/// counters, the engine's failures, the server's statistics, the panels open, turned into Unix
/// times. Runs on the input thread, between frames, once per request.
struct MetricsSnapshotBuilder {
    /// When the daemon started (monotonic µs).
    let started: Int64

    /// Not inlined: scripts/measure-breadth.sh finds the wake-ups that served a scrape by it.
    @inline(never)
    func snapshot(
        path: FramePath, loop: LoopCounters, server: ServerStatistics?, panels: [DeviceDescriptor]
    ) -> MetricsSnapshot {
        let monotonicNow = gestured_monotonic_us()
        let now = Self.realtime()
        func unix(_ monotonic: Int64) -> Double { now - Double(monotonicNow - monotonic) / 1_000_000 }
        let counters = path.counters
        let server = server ?? ServerStatistics()
        func transport(_ name: String, _ t: ServerStatistics.Transport) -> MetricsSnapshot.TransportCounts {
            MetricsSnapshot.TransportCounts(
                transport: name, connected: t.connected, accepted: t.accepted, refused: t.refused,
                messagesDropped: t.messagesDropped, overflowed: t.overflowed)
        }
        return MetricsSnapshot(
            version: gesturedVersion, startTime: unix(started), time: now, framesRead: counters.frames,
            touchesRead: counters.touches, mirrorFrames: path.mirrorFrames,
            gestures: path.reportCounts.map {
                MetricsSnapshot.GestureCount(
                    recognizer: $0.recognizer, owner: $0.recognizer.isEmpty ? "client" : "configuration",
                    kind: $0.kind.rawValue, state: $0.state.rawValue, count: UInt64($0.count))
            },
            failures: path.failureCounts.map {
                MetricsSnapshot.FailureCount(kind: $0.kind.rawValue, reason: $0.reason, count: UInt64($0.count))
            },
            transports: [transport("unix", server.unix), transport("websocket", server.webSocket)],
            definitionsAccepted: loop.definitionsAccepted, definitionsRefused: loop.definitionsRefused,
            reloadsSucceeded: loop.reloadsSucceeded, reloadsFailed: loop.reloadsFailed,
            configurationLoaded: unix(loop.configurationLoaded), lastTouch: counters.lastTouchAnywhere.map(unix),
            panels: panels.prefix(Self.maxPanels).map { panel in
                MetricsSnapshot.Panel(
                    label: panel.label, grabbed: path.isMirrored(panel.id),
                    lastTouch: counters.lastTouch.first { $0.device == panel.id }.map { unix($0.time) })
            },
            inputThreadCPUSeconds: Self.threadCPUSeconds(), frameToLine: loop.frameToLine)
    }

    /// Panels listed at most (a label each): more than any kiosk has.
    static let maxPanels = 64

    private static func realtime() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1_000_000_000
    }

    /// The calling thread's CPU time (user and system): the input thread's, called there.
    private static func threadCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1_000_000_000
    }
}
