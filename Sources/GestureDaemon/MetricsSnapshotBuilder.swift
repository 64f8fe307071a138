import CLinuxSupport
import GestureEngine
import GestureMetrics
import GestureProtocol
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
        snapshot(path: path, loop: loop, server: server, panels: panels, clock: Clock())
    }

    /// The daemon's part of a `status` reply: the snapshot, the configuration's file and load
    /// times, the panels with their mirrors and sizes. Values only: the server makes the reply
    /// and encodes it on its request thread.
    func status(
        path: FramePath, loop: LoopCounters, server: ServerStatistics?, panels: [DeviceDescriptor],
        configurationFile: String?, dropIns: [String]
    ) -> (configuration: StatusMessage.Configuration, panels: [StatusMessage.Panel], metrics: MetricsSnapshot) {
        let clock = Clock()
        let snapshot = snapshot(path: path, loop: loop, server: server, panels: panels, clock: clock)
        let configuration = StatusMessage.Configuration(
            file: configurationFile, dropIns: dropIns.isEmpty ? nil : dropIns, loaded: snapshot.configurationLoaded,
            reloadFailure: loop.lastReloadFailure.map {
                StatusMessage.ReloadFailure(time: clock.unix($0.time), error: $0.reason)
            })
        let lastTouch = path.counters.lastTouch
        let described = panels.prefix(Self.maxPanels).map { panel in
            let size = panel.geometry.physicalSize
            return StatusMessage.Panel(
                label: panel.label, name: panel.name, grabbed: path.isMirrored(panel.id),
                mirror: path.mirrorNode(panel.id), widthMillimeters: size?.width.value,
                heightMillimeters: size?.height.value,
                lastTouch: lastTouch.first { $0.device == panel.id }.map { clock.unix($0.time) })
        }
        return (configuration, described, snapshot)
    }

    /// The clocks read once for a snapshot: monotonic times become Unix times against them.
    private struct Clock {
        let monotonicNow = gestured_monotonic_us()
        let now = MetricsSnapshotBuilder.realtime()
        func unix(_ monotonic: Int64) -> Double { now - Double(monotonicNow - monotonic) / 1_000_000 }
    }

    private func snapshot(
        path: FramePath, loop: LoopCounters, server: ServerStatistics?, panels: [DeviceDescriptor], clock: Clock
    ) -> MetricsSnapshot {
        let now = clock.now
        let unix = clock.unix
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
                let day = path.panelCounts(of: panel.id)
                return MetricsSnapshot.Panel(
                    label: panel.label, grabbed: path.isMirrored(panel.id),
                    lastTouch: counters.lastTouch.first { $0.device == panel.id }.map { unix($0.time) },
                    stuckContactsEnded: day.map { UInt64($0.ended) }, stuckContactsRecurring: day.map { UInt64($0.recurring) })
            },
            inputThreadCPUSeconds: Self.threadCPUSeconds(), frameToLine: loop.frameToLine,
            panelDay: Self.panelDay(path.panelCounts, screenReads: counters.screenReads))
    }

    private static func panelDay(_ c: PanelCounts, screenReads: UInt64) -> MetricsSnapshot.PanelDay {
        MetricsSnapshot.PanelDay(
            wakesScreenOff: UInt64(c.screenOffWakes), wakesIdle: UInt64(c.idleWakes),
            contactsSwallowed: UInt64(c.swallowed), contactsIgnored: UInt64(c.ignored),
            stuckContactsEnded: UInt64(c.ended), stuckContactsRecurring: UInt64(c.recurring), screenReads: screenReads)
    }

    /// Panels listed at most (a label each): more than any kiosk has.
    static let maxPanels = 64

    fileprivate static func realtime() -> Double {
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
