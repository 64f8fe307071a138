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
    /// times, the panels with their mirrors and sizes; no clients. Values only: the server makes
    /// the reply and encodes it on its request thread.
    func status(
        path: FramePath, loop: LoopCounters, server: ServerStatistics?, panels: [DeviceDescriptor],
        configurationFile: String?, dropIns: [String]
    ) -> StatusMessage {
        let clock = Clock()
        let snapshot = snapshot(path: path, loop: loop, server: server, panels: panels, clock: clock)
        let configuration = StatusMessage.Configuration(
            file: configurationFile, dropIns: dropIns.isEmpty ? nil : dropIns, loaded: snapshot.configurationLoaded,
            reloadFailure: loop.lastReloadFailure.map {
                StatusMessage.ReloadFailure(time: clock.unix($0.time), error: $0.reason)
            })
        return StatusMessage(
            configuration: configuration, panels: Self.describe(panels, path: path, clock: clock), clients: [],
            metrics: snapshot)
    }

    /// The panels open now, as `status` lists them (at most ``maxPanels``), their last touches
    /// in Unix time against `clock`.
    static func describe(_ panels: [DeviceDescriptor], path: FramePath, clock: Clock) -> [StatusMessage.Panel] {
        let lastTouch = path.counters.lastTouch
        return panels.prefix(maxPanels).map { panel in
            let size = panel.geometry.physicalSize
            let state = path.panelState(panel.id)
            return StatusMessage.Panel(
                label: panel.label, name: panel.name, grabbed: path.isMirrored(panel.id),
                mirror: path.mirrorNode(panel.id), widthMillimeters: size?.width.value,
                heightMillimeters: size?.height.value,
                lastTouch: lastTouch.first { $0.device == panel.id }.map { clock.unix($0.time) },
                rotation: state.rotation, idle: state.idle, screenOn: state.screenOn)
        }
    }

    /// The clocks read once for a snapshot: monotonic times become Unix times against them.
    struct Clock {
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
        var snapshot = MetricsSnapshot(
            version: gesturedVersion, startTime: unix(started), time: now,
            configurationLoaded: unix(loop.configurationLoaded))
        snapshot.counts = path.counts
        for counter in Counter.allCases { snapshot.counts[counter] += loop.counts[counter] }
        snapshot.gestures = path.reportCounts.map {
            MetricsSnapshot.GestureCount(
                recognizer: $0.recognizer, owner: $0.recognizer.isEmpty ? "client" : "configuration",
                kind: $0.kind.rawValue, state: $0.state.rawValue, count: UInt64($0.count))
        }
        snapshot.failures = path.failureCounts.map {
            MetricsSnapshot.FailureCount(kind: $0.kind.rawValue, reason: $0.reason, count: UInt64($0.count))
        }
        snapshot.transports = [server.unix, server.webSocket]
        snapshot.lastTouch = counters.lastTouchAnywhere.map(unix)
        snapshot.panels = panels.prefix(Self.maxPanels).map { panel in
            let day = path.counts(of: panel.id)
            return MetricsSnapshot.Panel(
                label: panel.label, grabbed: path.isMirrored(panel.id),
                lastTouch: counters.lastTouch.first { $0.device == panel.id }.map { unix($0.time) },
                stuckContactsEnded: day?[.stuckContactsEnded], stuckContactsRecurring: day?[.stuckContactsRecurring])
        }
        snapshot.inputThreadCPUSeconds = Self.threadCPUSeconds()
        snapshot.frameToLine = loop.frameToLine
        return snapshot
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
