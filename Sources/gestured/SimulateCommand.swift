import ArgumentParser
import CLinuxSupport
import FoundationEssentials
import GestureEngine
import Glibc
import TouchInput
import VirtualDevices
import YAMLCoding

/// `gestured simulate`: a virtual uinput touchscreen playing a gesture script or a recording.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Create a virtual touchscreen (uinput) and play gestures or a recording into it.",
        discussion: """
            The device is made from a built-in profile (--profile) or an evemu description \
            (--device), plays a gesture script (--script, or steps given as arguments) or a \
            recording (--recording), and is removed when the command ends. Needs write access to \
            /dev/uinput (root, or a udev rule granting it).

            Profiles:
            \(DeviceProfile.allCases.map { "  \($0.rawValue)\n      \($0.summary)" }.joined(separator: "\n"))

            Script steps (one per line in --script, or one per argument; \(Installed.guide("INPUT")) has the full \
            language): tap, double-tap, long-press, pan, swipe, pinch, rotate, edge-swipe, circle, \
            wait, down/move/up (low-level contacts), pause (until SIGUSR1), unplug. Positions are 0…1 from the top-left.

            Examples:
              gestured simulate tap "swipe left fingers=3" "pinch out"
              gestured simulate --profile optical-2 "pan from=0.2,0.5 to=0.8,0.5"
              gestured simulate --script demo.gesture --hold
              gestured simulate --device panel.prop --recording session.evemu --speed 2
              gestured simulate --start-on-signal "pan duration=2s" --unplug-after 1s
              gestured simulate "down id=1 at=0.2,0.5" "move id=1 to=0.5,0.5" \\
                pause "up id=1"
              gestured simulate --record swipe.evemu "swipe right" \\
                && gestured replay swipe.evemu

            On stdout the command prints 'device <node> <name>' once the device exists, 'playing' \
            when playback starts (again after a pause), 'paused; waiting for SIGUSR1' at a pause and \
            'unplugged' when the device is removed, so a test can wait for each line.
            """
    )

    @Option(help: "A built-in device profile (see above).")
    var profile: String?

    @Option(help: ArgumentHelp(
            "An evemu device description (evemu-describe output), or a libinput recording's touchscreen, to copy.",
            valueName: "file"))
    var device: String?

    @Option(help: "The device name (default: 'gestured virtual <profile>' or the description's name).")
    var name: String?

    @Option(help: ArgumentHelp("A gesture script file.", valueName: "file"))
    var script: String?

    @Option(
        help: ArgumentHelp(
            "An evemu or libinput recording to play (its description is used unless --profile/--device).",
            valueName: "file"))
    var recording: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Playback speed: a factor of real time from \(PlaybackSpeed.factors.lowerBound) to "
                + "\(Int(PlaybackSpeed.factors.upperBound)) (2 = twice as fast).", valueName: "N"),
        transform: { try PlaybackSpeed(parsing: $0, allowsMax: false) })
    var speed: PlaybackSpeed = .factor(1)

    @Option(help: "Seed of the timing jitter of scripted gestures.")
    var seed: UInt64 = 1

    @Option(
        help: ArgumentHelp(
            "Wait this long after creating the device before playing (e.g. 500ms).", valueName: "duration"))
    var startDelay: String = "300ms"

    @Flag(help: "Create the device, then wait for SIGUSR1 before playing.")
    var startOnSignal = false

    @Option(
        help: ArgumentHelp(
            "Unplug the device this long after playback starts, even mid-gesture.", valueName: "duration"))
    var unplugAfter: String?

    @Flag(help: "Keep the device plugged after playing, until SIGINT or SIGTERM.")
    var hold = false

    @Option(
        help: ArgumentHelp(
            "Write the scripted gestures to this file as an evemu recording instead of playing them (no uinput needed).",
            valueName: "file"))
    var record: String?

    @Argument(help: "Script steps, one per argument (e.g. \"swipe left fingers=2\").")
    var steps: [String] = []

    func validate() throws {
        if profile != nil && device != nil { throw ValidationError("give --profile or --device, not both") }
        if let profile, DeviceProfile(rawValue: profile) == nil {
            throw ValidationError(
                "unknown profile '\(profile)' (one of: \(DeviceProfile.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        let sources = [script != nil, recording != nil, !steps.isEmpty].filter { $0 }.count
        if sources > 1 { throw ValidationError("give a script, steps or a recording, not several") }
        if Self.duration(startDelay) == nil {
            throw ValidationError("--start-delay: expected a duration such as 500ms")
        }
        if let unplugAfter, Self.duration(unplugAfter) == nil {
            throw ValidationError("--unplug-after: expected a duration such as 1.5s")
        }
        if record != nil && (recording != nil || hold || startOnSignal || unplugAfter != nil) {
            throw ValidationError(
                "--record writes a script's gestures; it does not go with --recording, --hold, --start-on-signal or --unplug-after"
            )
        }
    }

    static func duration(_ text: String) -> TimeSpan? { GestureScript.duration(text) }

    func run() throws {
        let signals = try SignalWaiter()
        // What to play, parsed before any device exists so a bad file fails cleanly.
        var parsed: GestureScript?
        var recorded: Recording?
        do {
            if let recording {
                recorded = try Self.recordingFile(recording)
            } else if let script {
                parsed = try GestureScript(parsing: String(decoding: try Self.read(script), as: UTF8.self))
            } else if !steps.isEmpty {
                parsed = try GestureScript(steps: steps)
            }
        } catch let error as LineError {
            throw Self.fail("\(recording ?? script ?? "steps"):\(error.line): \(error.message)")
        }

        var description: DeviceCapabilities
        if let device {
            description = try Self.recordingFile(device).description
        } else if let recorded, profile == nil {
            description = recorded.description
        } else {
            description = DeviceProfile(rawValue: profile ?? DeviceProfile.kiosk10.rawValue)!.capabilities()
        }
        if let name { description.name = name }
        var timeline: [TimelineStep] = []
        if let parsed {
            do {
                timeline = try parsed.timeline(seed: seed, aspect: Self.aspect(of: description))
            } catch {
                throw Self.fail("\(script ?? "steps"):\(error.line): \(error.message)")
            }
        }
        if let record {
            guard timeline.contains(where: { if case .frame = $0 { true } else { false } }) else {
                throw Self.fail(
                    "--record \(record): no gestures to record; give steps (gestured simulate --record \(record) tap "
                        + "\"swipe left\") or --script FILE")
            }
            return try write(timeline, as: description, to: record)
        }

        let touchscreen: VirtualTouchscreen
        do {
            touchscreen = try VirtualTouchscreen(description: description)
        } catch {
            throw Self.fail(Self.explainUinput(error))
        }
        say("device \(touchscreen.devnode ?? "?") \(description.name)")

        if startOnSignal {
            say("waiting for SIGUSR1")
            guard signals.wait(for: [SIGUSR1], until: nil) == SIGUSR1 else { return unplug(touchscreen) }
        } else if signals.wait(for: [], until: Self.now() + Self.duration(startDelay)!) != nil {
            return unplug(touchscreen)
        }

        say("playing")
        let start = Self.now()
        let unplugAt = unplugAfter.flatMap(Self.duration).map { start + $0 }
        let interrupted: Bool
        if let recorded {
            interrupted = try play(recorded, on: touchscreen, from: start, unplugAt: unplugAt, signals: signals)
        } else {
            interrupted = try play(timeline, on: touchscreen, from: start, unplugAt: unplugAt, signals: signals)
        }
        if interrupted || !touchscreen.isPlugged { return unplug(touchscreen) }
        if hold {
            say("holding; SIGINT or SIGTERM unplugs")
            _ = signals.wait(for: [], until: nil)
        }
        unplug(touchscreen)
    }

    /// The panel's height over its width on the glass (the engine's measuring size: the real size,
    /// or the nominal one with the axis ranges' aspect).
    static func aspect(of description: DeviceCapabilities) -> Double {
        // A description the daemon would not take as a touchscreen (the touchpad profile) is drawn square.
        guard let model = try? TouchscreenModel(description: description, settings: DeviceSettings()) else { return 1 }
        let size = model.descriptor(id: DeviceID(0), label: "").geometry.measuringSize
        return size.height.value / size.width.value
    }

    /// `--record`: the frames the device would have sent, as an evemu recording (times from 1 s).
    private func write(_ timeline: [TimelineStep], as description: DeviceCapabilities, to path: String) throws {
        guard var encoder = ContactEncoder(description: description) else {
            throw Self.fail("the device has no position axes to record")
        }
        var writer = EvemuWriter(device: description)
        var events: [RawEvent] = []
        let origin = Timestamp(microseconds: 1_000_000)
        steps: for step in timeline {
            let offset: TimeSpan
            let contacts: [SimulatedContact]
            switch step {
            case .frame(let at, let down): (offset, contacts) = (at, down)
            case .pause, .end: continue  // a recording plays straight through
            case .unplug: break steps  // nothing more comes from an unplugged device
            }
            events.removeAll(keepingCapacity: true)
            encoder.encode(contacts, into: &events)
            let time = origin + speed.scaled(offset)
            for e in events { writer.append(InputEvent(time: time, type: e.type, code: e.code, value: e.value)) }
        }
        do {
            try Data(writer.text.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw Self.fail("cannot write \(path): \(error)")
        }
        say("recorded \(timeline.count) frames to \(path)")
    }

    private func unplug(_ touchscreen: VirtualTouchscreen) {
        if touchscreen.isPlugged { touchscreen.unplug() }
        say("unplugged")
    }

    /// How late a frame may go out before the rest of the script moves later.
    static let lateness = TimeSpan.milliseconds(2)

    /// A frame that goes out more than ``lateness`` after it was `due` (this process was held up:
    /// a loaded machine, a slow VM) moves the rest of the script as late, as a pause does. The
    /// frames keep their spacing, as a real panel's do; catching up would send the late frames
    /// at once, and the kernel stamps each with the time it was written, so a reader would see a
    /// finger that jumped (a hook of 230 mm/s read as a flick).
    static func keepSpacing(due: Timestamp, start: inout Timestamp, unplugAt: inout Timestamp?) {
        let late = now() - due
        guard late > lateness else { return }
        start = start + late
        unplugAt = unplugAt.map { $0 + late }
    }

    /// When `step` is due: its offset scaled by the speed.
    private func deadline(_ start: Timestamp, _ offset: TimeSpan) -> Timestamp {
        start + speed.scaled(offset)
    }

    /// Plays scripted frames; returns true when a signal interrupted it.
    private func play(
        _ timeline: [TimelineStep], on touchscreen: VirtualTouchscreen, from start: Timestamp, unplugAt: Timestamp?,
        signals: SignalWaiter
    ) throws -> Bool {
        var start = start
        var unplugAt = unplugAt
        for step in timeline {
            let due = deadline(start, step.time)
            if let unplugAt, unplugAt <= due {
                if signals.wait(for: [], until: unplugAt) != nil { return true }
                touchscreen.unplug()
                say("unplugged mid-script at \(Self.format(TimeSpan(microseconds: (unplugAt - start).microseconds)))")
                return false
            }
            if signals.wait(for: [], until: due) != nil { return true }
            Self.keepSpacing(due: due, start: &start, unplugAt: &unplugAt)
            switch step {
            case .frame(_, let contacts):
                try send { () throws(InputError) in try touchscreen.send(contacts) }
            case .unplug:
                touchscreen.unplug()
                return false
            case .end:
                return false
            case .pause:
                say("paused; waiting for SIGUSR1")
                let pausedAt = Self.now()
                guard signals.wait(for: [SIGUSR1], until: nil) == SIGUSR1 else { return true }
                // The rest of the script keeps its spacing: everything after the pause moves later.
                let paused = Self.now() - pausedAt
                start = start + paused
                unplugAt = unplugAt.map { $0 + paused }
                say("playing")
            }
        }
        return false
    }

    /// Plays a recording's events with their original spacing; returns true when interrupted.
    private func play(
        _ recording: Recording, on touchscreen: VirtualTouchscreen, from start: Timestamp, unplugAt: Timestamp?,
        signals: SignalWaiter
    ) throws -> Bool {
        var reader = recording.events()
        var first: Timestamp?
        var start = start
        var unplugAt = unplugAt
        do {
            while let event = try reader.next() {
                // SYN_DROPPED in a recording marks a loss on the recording machine; it is not an event to replay.
                if event.type == EventCode.evSyn && event.code == EventCode.synDropped { continue }
                let origin = first ?? event.time
                first = origin
                let due = deadline(start, event.time - origin)
                if let unplugAt, unplugAt <= due {
                    if signals.wait(for: [], until: unplugAt) != nil { return true }
                    touchscreen.unplug()
                    return false
                }
                if signals.wait(for: [], until: due) != nil { return true }
                Self.keepSpacing(due: due, start: &start, unplugAt: &unplugAt)
                try send { () throws(InputError) in
                    try touchscreen.write(RawEvent(event.type, event.code, event.value))
                }
            }
        } catch let error as LineError {
            throw Self.fail("\(self.recording ?? ""):\(error.line): \(error.message)")
        }
        return false
    }

    private func send(_ body: () throws(InputError) -> Void) throws {
        do {
            try body()
        } catch {
            throw Self.fail("writing to the virtual device failed: \(error)")
        }
    }

    /// An evemu recording or description, or a `libinput record` file's touchscreen, or the
    /// exit after saying why not.
    static func recordingFile(_ path: String) throws -> Recording {
        do {
            return try RecordingFile.recording(at: path)
        } catch .line(let error) {
            throw fail("\(path):\(error.line): \(error.message)")
        } catch .unreadable(let reason) {
            throw fail("cannot read \(path): \(reason)")
        } catch {
            throw fail(error.located(in: path))
        }
    }

    /// The most bytes a gesture script may have (docs/INPUT.md): a script is a few lines a gesture.
    static let maximumScriptSize = 1 << 20

    /// A gesture script's bytes, read as the configuration is (a regular file, refused over
    /// ``maximumScriptSize`` before it is read), or the exit after saying why not.
    static func read(_ path: String) throws -> [UInt8] {
        do {
            return try YAMLFile.contents(of: path, limit: maximumScriptSize, kind: "a gesture script")
        } catch {
            throw fail("\(error)")
        }
    }

    static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Timestamp(microseconds: Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000)
    }

    static func format(_ span: TimeSpan) -> String { "\(span.microseconds / 1000) ms" }

    /// Why the virtual device could not be made, and what to do: load uinput, get access to it,
    /// or record to a file instead (which needs no uinput).
    static func explainUinput(_ error: InputError) -> String {
        let cause =
            switch error.errno {
            case ENOENT, ENODEV, ENXIO:
                "/dev/uinput does not exist: load the uinput module (sudo modprobe uinput)"
            case EACCES, EPERM:
                "/dev/uinput: permission denied for uid \(getuid()): run as root, or as a member of the group "
                    + "/usr/lib/udev/rules.d/70-gestured.rules gives /dev/uinput (gestured-uinput)"
            default:
                "cannot create the virtual device: \(error)"
            }
        return cause + ". Without uinput, --record FILE writes the gestures to an evemu recording instead "
            + "(then: gestured replay FILE)"
    }

    /// Prints `message` on stderr and returns the failure exit code to throw.
    static func fail(_ message: String) -> ExitCode {
        printError("gestured simulate: \(message)")
        return ExitCode.failure
    }
}

/// Waits for signals synchronously: SIGINT, SIGTERM and SIGUSR1 are routed into a pipe from
/// creation on (handlers, so a signal interrupts a wait instead of killing the process, which
/// would leave no chance to log the unplug). Not a blocked mask and sigwait: the mask is per
/// thread, and the async runtime's threads, which exist before `run()`, would take the signal
/// with its default action and kill the process.
final class SignalWaiter {
    private let pipe: Int32

    init() throws {
        let signals = [SIGINT, SIGTERM, SIGUSR1]
        pipe = gestured_signal_pipe_install_for(signals, Int32(signals.count))
        guard pipe >= 0 else {
            throw SimulateCommand.fail("cannot install the signal handlers: \(String(cString: strerror(errno)))")
        }
    }

    /// Waits until `deadline` (nil: forever) for any of those signals. Returns the signal when it
    /// is SIGINT or SIGTERM (stop) or one of `wanted`; nil at the deadline. Others are dropped.
    func wait(for wanted: Set<Int32>, until deadline: Timestamp?) -> Int32? {
        while true {
            while case let signal = gestured_signal_pipe_read(pipe), signal > 0 {
                if signal == SIGINT || signal == SIGTERM || wanted.contains(signal) { return signal }
            }
            let remaining = deadline.map { max($0.microseconds - SimulateCommand.now().microseconds, 0) }
            if remaining == 0 { return nil }
            _ = gestured_wait_readable(pipe, remaining ?? -1)  // readable, timed out, or EINTR: look again
        }
    }
}
