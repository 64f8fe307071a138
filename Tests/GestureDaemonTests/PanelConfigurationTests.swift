import FoundationEssentials
import Glibc
import GestureEngine
import Logging
import Synchronization
import TestSupport
import Testing
import TouchInput

@testable import GestureDaemon

/// A kiosk's day in the configuration (docs/CONFIGURATION.md, "A kiosk's day"): dead zones,
/// stuck contacts, idle and wakes, where the screen's state is read; and the screen watch that
/// reads it.
@Suite("Configuration: a kiosk's day")
struct PanelConfigurationTests {
    static let full = """
        idle-after-ms: 300000
        wake-after-idle: true
        stuck-contact: {after-ms: 30000}
        devices:
          - match: {name: "ft5x06*"}
            ignore:
              - {x: 0, y: 0.95, width: 1, height: 0.05}
            stuck-contact: {after-ms: 20000, within-mm: 1.5}
            idle-after-ms: 60000
            wake-after-idle: false
            screen: {dpms: /sys/class/drm/card1-DSI-1/dpms}
          - match: {name: "Goodix*"}
            screen: {bl-power: /sys/class/backlight/10-0045/bl_power}

        """

    @Test("every key decodes; an entry's own values win, the top level's fill in, and panels no entry selects get them")
    func decodes() throws {
        let config = try ConfigurationLoader.parse(Data(Self.full.utf8), file: "k.yaml")
        #expect(config.panels == PanelDefaults(
            idleAfterMS: 300_000, wakeAfterIdle: true,
            stuckContact: StuckContactLimit(after: .milliseconds(30_000), within: Millimeters(3))))
        let rules = config.deviceRules
        #expect(rules.count == 3)
        let first = rules[0].settings
        #expect(first.panel.deadZones == [SurfaceRect(x: 0, y: 0.95, width: 1, height: 0.05)])
        #expect(first.panel.stuckContact == StuckContactLimit(after: .milliseconds(20_000), within: Millimeters(1.5)))
        #expect(first.panel.idleAfter == .milliseconds(60_000))
        #expect(!first.panel.wakeAfterIdle)
        #expect(first.panel.screenWake)
        #expect(first.screen == PanelWake.ScreenFile(kind: .dpms, path: "/sys/class/drm/card1-DSI-1/dpms"))
        let second = rules[1].settings
        #expect(second.panel.idleAfter == .milliseconds(300_000) && second.panel.wakeAfterIdle)
        #expect(second.panel.stuckContact?.after == .milliseconds(30_000))
        #expect(second.screen?.kind == .blPower)
        let others = rules[2]
        #expect(others.match == DeviceMatch())
        #expect(others.settings.panel.idleAfter == .milliseconds(300_000) && others.settings.screen == nil)
        #expect(others.settings.enabled)
    }

    @Test("nothing of it configured: no stage for any panel, and no extra device rule")
    func nothingConfigured() throws {
        let config = try ConfigurationLoader.parse(Data("devices:\n  - match: {name: a}\n".utf8), file: "k.yaml")
        #expect(config.deviceRules.count == 1)
        #expect(!config.deviceRules[0].settings.panel.isActive)
        #expect(!DaemonConfiguration.builtIn.deviceRules.contains { $0.settings.panel.isActive })
    }

    @Test("it prints back as it loads")
    func roundTrip() throws {
        let config = try ConfigurationLoader.parse(Data(Self.full.utf8), file: "k.yaml")
        let yaml = try ConfigurationLoader.yaml(config, header: "kiosk")
        #expect(try ConfigurationLoader.parse(Data(yaml.utf8), file: "again.yaml") == config)
    }

    static let broken: [BrokenConfiguration] = [
        .init(
            title: "wake-after-idle with no idle time", yaml: "devices:\n  - match: {name: a}\n    wake-after-idle: true\n",
            line: 3, column: 22, says: "'wake-after-idle' needs 'idle-after-ms'"),
        .init(
            title: "wake-after-idle at the top with no idle time", yaml: "wake-after-idle: true\n", line: 1, column: 18,
            says: "needs 'idle-after-ms'"),
        .init(
            title: "idle time out of range", yaml: "idle-after-ms: 5\n", line: 1, column: 16,
            says: "milliseconds from 100 to 604800000"),
        .init(
            title: "stuck-contact without after-ms", yaml: "stuck-contact: {within-mm: 2}\n", line: 1, column: 16,
            says: "'stuck-contact' needs 'after-ms'"),
        .init(
            title: "stuck-contact too soon", yaml: "stuck-contact: {after-ms: 10}\n", line: 1, column: 27,
            says: "milliseconds from 1000 to 86400000"),
        .init(
            title: "stuck-contact unknown key", yaml: "stuck-contact: {after-ms: 5000, within: 2}\n", line: 1, column: 33,
            says: "unknown key 'within'"),
        .init(
            title: "a dead zone past the surface",
            yaml: "devices:\n  - ignore:\n      - {x: 0.5, y: 0, width: 0.6, height: 1}\n", line: 3, column: 9,
            says: "reaches past the surface"),
        .init(
            title: "a screen of two kinds", yaml: "devices:\n  - screen: {dpms: /a, brightness: /b}\n", line: 2, column: 13,
            says: "one of 'dpms', 'bl-power' or 'brightness'"),
        .init(
            title: "a screen of no known kind", yaml: "devices:\n  - screen: {backlight: /a}\n", line: 2, column: 14,
            says: "unknown key 'backlight'"),
        .init(
            title: "a screen path that is not absolute", yaml: "devices:\n  - screen: {dpms: dpms}\n", line: 2, column: 20,
            says: "expected an absolute path"),
    ]

    @Test("a broken kiosk key fails at its file:line:column", arguments: broken)
    func brokenConfiguration(_ example: BrokenConfiguration) {
        do {
            let config = try ConfigurationLoader.parse(Data(example.yaml.utf8), file: "test.yaml")
            Issue.record("accepted: \(config)")
        } catch {
            #expect((error.line, error.column) == (example.line, example.column), "\(error)")
            #expect(error.message.contains(example.says), "\(error)")
        }
    }
}

/// `screen` paths as this system has them: a full load (`check-config`, `run`, a reload) refuses
/// a path that is not a file the daemon can read its state from, at the path's line and column.
@Suite("Configuration: screen paths on this system")
struct ScreenPathTests {
    static func configuration(_ path: String) -> String {
        "devices:\n  - match: {name: a}\n    screen: {dpms: \(path)}\n"
    }

    /// Loads `text` as a file with a full check, as check-config does.
    static func load(_ text: String) throws(ConfigurationFileError) -> DaemonConfiguration {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("screen-\(UUID().uuidString)").path
        mkdir(directory, 0o700)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/gestured.yaml"
        try? text.write(toFile: file, atomically: true, encoding: .utf8)
        return try ConfigurationLoader.load(contentsOf: file)
    }

    @Test(
        "a path that is not a readable file is refused at its line and column",
        arguments: [
            ("/dev/zero", "a character device"), ("/nonexistent/card1-DSI-1/dpms", "No such file"),
            ("/tmp", "a directory"), ("FIFO", "a FIFO"),
        ])
    func refused(_ path: String, _ says: String) throws {
        var path = path
        var fifo: String?
        if path == "FIFO" {
            fifo = FileManager.default.temporaryDirectory.appendingPathComponent("dpms-\(UUID().uuidString)").path
            try #require(mkfifo(fifo!, 0o600) == 0)
            path = fifo!
        }
        defer { if let fifo { unlink(fifo) } }
        do {
            let config = try Self.load(Self.configuration(path))
            Issue.record("accepted \(path): \(config.devices)")
        } catch {
            #expect((error.line, error.column) == (3, 20), "\(error)")
            #expect(error.message.contains(says) && error.message.contains(path), "\(error)")
        }
    }

    @Test("a regular file is taken, as sysfs attributes are")
    func regularFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dpms-\(UUID().uuidString)").path
        try "On\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let config = try Self.load(Self.configuration(path))
        #expect(config.devices.first?.screen?.path == path)
    }
}

@Suite("The screen's state")
struct ScreenStateTests {
    static func file(_ contents: String, _ kind: PanelWake.ScreenFile.Kind) throws -> PanelWake.ScreenFile {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("screen-\(UUID().uuidString)").path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return PanelWake.ScreenFile(kind: kind, path: path)
    }

    @Test(
        "each kind of file says on or off in the kernel's words",
        arguments: [
            ("On\n", PanelWake.ScreenFile.Kind.dpms, PanelWake.ScreenFile.Reading.on), ("Off\n", .dpms, .off),
            ("Standby\n", .dpms, .off), ("Suspend", .dpms, .off), ("0\n", .blPower, .on), ("4\n", .blPower, .off),
            ("1", .blPower, .off), ("0\n", .brightness, .off), ("255\n", .brightness, .on),
        ])
    func readings(_ contents: String, _ kind: PanelWake.ScreenFile.Kind, _ expected: PanelWake.ScreenFile.Reading) throws {
        let file = try Self.file(contents, kind)
        defer { unlink(file.path) }
        #expect(file.read() == expected)
    }

    @Test("what cannot be read, or says something else, is unknown, with the reason")
    func unknown() throws {
        let garbage = try Self.file("maybe\n", .dpms)
        defer { unlink(garbage.path) }
        guard case .unknown(let why) = garbage.read() else { Issue.record("read as known"); return }
        #expect(why.contains("'maybe'"))
        let missing = PanelWake.ScreenFile(kind: .blPower, path: "/nonexistent/bl_power")
        guard case .unknown(let reason) = missing.read() else { Issue.record("read as known"); return }
        #expect(reason.contains("cannot open /nonexistent/bl_power"))
        #expect(PanelWake.ScreenFile(kind: .brightness, path: "/x").parse(Array("-1".utf8)) != .on)
    }

    static let silent = Logger(label: "screen") { _ in SwiftLogNoOpLogHandler() }

    static func frame(_ ms: Int64, _ phases: TouchPhase...) -> TouchFrame {
        TouchFrame(
            device: DeviceID(1), time: Timestamp(microseconds: ms * 1000),
            touches: phases.enumerated().map {
                Touch(id: TouchID(UInt32($0.offset + 1)), phase: $0.element, position: SurfacePoint(x: 0.5, y: 0.5))
            })
    }

    @Test("a changed file is seen at the first landing after a quiet moment that follows the worker's next read; a reading older than the panel's last report is not acted on")
    func changeSeenWithinTheInterval() throws {
        let file = try Self.file("Off\n", .dpms)
        defer { unlink(file.path) }
        let now = Mutex<Int64>(0)
        let reader = PanelWake.Reader(file: file, clock: { now.withLock { $0 } })
        func poll(atMS ms: Int64) {
            now.withLock { $0 = ms * 1000 }
            reader.poll(logger: Self.silent)
        }
        var wake = PanelWake(device: DeviceID(1), reader: reader)
        #expect(wake.landing(Self.frame(10_000, .began)) == nil)  // nothing read yet
        #expect(wake.landing(Self.frame(10_100, .ended)) == nil)
        poll(atMS: 11_000)
        #expect(wake.landing(Self.frame(12_200, .began)) == .off)  // quiet for 2 s, read 1.2 s ago
        #expect(wake.landing(Self.frame(12_210, .moved)) == nil)
        #expect(wake.landing(Self.frame(12_220, .stationary, .began)) == nil)  // a touch is down
        #expect(wake.landing(Self.frame(12_300, .ended, .ended)) == nil)
        try "On\n".write(toFile: file.path, atomically: false, encoding: .utf8)
        #expect(wake.landing(Self.frame(13_500, .began)) == nil)  // 1.2 s after the last report
        #expect(wake.landing(Self.frame(13_600, .ended)) == nil)
        poll(atMS: 14_000)  // the worker's next read
        #expect(wake.landing(Self.frame(15_600, .began)) == .on)  // quiet for 2 s: the reading of 14 s
        #expect(wake.landing(Self.frame(15_700, .ended)) == nil)
        // The worker stalls (a hung mount): the reading of 14 s predates the last report.
        try "Off\n".write(toFile: file.path, atomically: false, encoding: .utf8)
        #expect(wake.landing(Self.frame(18_000, .began)) == nil)
        #expect(wake.landing(Self.frame(18_100, .ended)) == nil)
        poll(atMS: 19_000)
        #expect(wake.landing(Self.frame(20_100, .began)) == .off)  // read on at 14 s, off since: a wake
        #expect(wake.landing(Self.frame(20_200, .ended)) == nil)
        // The wake's command has not lit the screen yet: its file still says off, read after the
        // wake's lift. The next touch is not a second wake.
        poll(atMS: 21_000)
        #expect(wake.landing(Self.frame(22_300, .began)) == nil)
        #expect(wake.landing(Self.frame(22_400, .ended)) == nil)
        try "On\n".write(toFile: file.path, atomically: false, encoding: .utf8)
        poll(atMS: 23_000)
        try "Off\n".write(toFile: file.path, atomically: false, encoding: .utf8)
        poll(atMS: 24_000)  // lit, then off again: the next touch wakes it
        #expect(wake.landing(Self.frame(24_500, .began)) == .off)
    }

    /// Random streams of one panel — touches of one to three fingers, held or lifted, gaps from a
    /// few milliseconds to a few seconds — with the worker reading the file at each tick of the
    /// interval (or stalled for a while), and the file changing between frames. The landings read
    /// nothing: every read is the worker's, one a tick. A landing after a quiet moment — nothing
    /// down, no report for ``PanelWake/quiet`` before it (or the panel's first report) — takes the
    /// latest reading when it was taken since the previous report — but not a reading of off after
    /// a wake until the file has been read on since; no other frame takes one.
    @Test("the input thread's landings read no file: reads are the worker's, one a tick, and each landing after a quiet moment takes the latest reading (random streams)")
    func landingsReadNothing() {
        let base: UInt64 = 0x5C_EE44_EAD0
        var seeds = SplitMix64(seed: base)
        var taken = 0
        var skippedLandings = 0
        for _ in 0..<300 {
            let seed = seeds.next()
            var rng = SplitMix64(seed: seed)
            let file = Mutex((reads: 0, time: Int64(0), says: PanelWake.ScreenFile.Reading.on))
            let reader = PanelWake.Reader(
                file: PanelWake.ScreenFile(kind: .dpms, path: "/nonexistent/dpms"),
                read: {
                    file.withLock {
                        $0.reads += 1
                        return $0.says
                    }
                }, clock: { file.withLock { $0.time } })
            var wake = PanelWake(device: DeviceID(1), reader: reader)
            var time: Int64 = 1_000_000
            var tick: Int64 = 0
            var ticks = 0
            var latest: (reading: PanelWake.ScreenFile.Reading, time: Int64)?
            var lastOn = Int64.min
            var woke: Int64?
            var previous: Int64?
            var down: [UInt32] = []
            var nextID: UInt32 = 1
            for _ in 0..<60 {
                // Gaps around the quiet limit, often on either side of it.
                let gaps: [Int64] = [5_000, 16_000, 400_000, 1_999_999, 2_000_000, 2_500_000, 6_000_000]
                time += gaps[Int(rng.next() % UInt64(gaps.count))]
                let stalled = rng.next() % 8 == 0
                while tick <= time {
                    if !stalled {
                        file.withLock { $0.time = tick }
                        reader.poll(logger: Self.silent)
                        latest = (file.withLock { $0.says }, tick)
                        if latest?.reading == .on { lastOn = tick }
                        ticks += 1
                    }
                    tick += PanelWake.interval
                }
                if rng.next() % 4 == 0 { file.withLock { $0.says = $0.says == .on ? .off : .on } }
                var touches = down.map {
                    Touch(id: TouchID($0), phase: rng.next() % 2 == 0 ? .moved : .stationary, position: SurfacePoint(x: 0.5, y: 0.5))
                }
                let quiet = down.isEmpty && previous.map { time - $0 >= PanelWake.quiet } ?? true
                var landed = false
                if down.count < 3, rng.next() % 3 != 0 {
                    let fingers = 1 + Int(rng.next() % UInt64(3 - down.count))
                    for _ in 0..<fingers {
                        touches.append(Touch(id: TouchID(nextID), phase: .began, position: SurfacePoint(x: 0.3, y: 0.3)))
                        down.append(nextID)
                        nextID += 1
                    }
                    landed = true
                } else if !down.isEmpty {
                    let lifted = down.removeLast()
                    touches.removeAll { $0.id == TouchID(lifted) }
                    touches.append(Touch(id: TouchID(lifted), phase: .ended, position: SurfacePoint(x: 0.5, y: 0.5)))
                }
                let reads = file.withLock { $0.reads }
                let reading = wake.landing(TouchFrame(device: DeviceID(1), time: Timestamp(microseconds: time), touches: touches))
                #expect(file.withLock { $0.reads } == reads, "seed \(seed): the file was read at a landing")
                let acted = latest.map { $0.time > (previous ?? Int64.min) && ($0.reading != .off || woke.map { lastOn > $0 } ?? true) } == true
                let expected = landed && quiet && acted ? latest?.reading : nil
                if expected == .off { woke = time }
                #expect(reading == expected, "seed \(seed): at \(time) µs took \(String(describing: reading)), not \(String(describing: expected))")
                if reading != nil { taken += 1 }
                if landed && !quiet { skippedLandings += 1 }
                previous = time
            }
            #expect(file.withLock { $0.reads } == ticks, "seed \(seed): \(file.withLock { $0.reads }) reads for \(ticks) ticks")
        }
        // The streams must exercise both sides: landings that take a reading, and landings that do not.
        #expect(taken > 500 && skippedLandings > 1_000, "\(taken) readings taken, \(skippedLandings) landings not after a quiet moment")
    }

    @Test("a file that cannot be read is said in the journal at its first failed read, then once every failuresPerLine while it lasts, and again when it can be read")
    func unreadableLogged() {
        let records = Observed<[LogCapture.Record]>([])
        let logger = LogCapture.logger(into: records)
        let says = Mutex(PanelWake.ScreenFile.Reading.unknown("cannot open /gone/dpms: No such file or directory"))
        let reader = PanelWake.Reader(
            file: PanelWake.ScreenFile(kind: .dpms, path: "/gone/dpms"), read: { says.withLock { $0 } })
        for _ in 0..<(2 * PanelWake.Reader.failuresPerLine + 1) { reader.poll(logger: logger) }
        says.withLock { $0 = .on }
        reader.poll(logger: logger)
        reader.poll(logger: logger)
        let logged = records.value.map { "\($0.message) \($0.metadata)" }
        #expect(logged.count == 4, "\(logged)")
        #expect(logged.prefix(3).allSatisfy { $0.contains("cannot tell whether the screen is on") && $0.contains("/gone/dpms") })
        #expect(logged.last?.contains("can be read again") == true)
    }
}
