import ArgumentParser
import FoundationEssentials
import GestureDaemon
import TouchInput

/// `gestured run`: the daemon.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the daemon: read touchscreens, recognize gestures, serve them on the socket.",
        discussion: """
            Without --config the built-in configuration runs (`gestured config --default` prints \
            it); with it, the file and the drop-ins of FILE.d/*.yaml merged onto it \
            (\(Installed.guide("CONFIGURATION")), "Drop-in files"; `gestured config --effective FILE` prints \
            them merged). Touchscreens present at start are opened; ones plugged in later are found through \
            udev (or, without udevd, through kernel events). With no touchscreen the daemon says so \
            and waits. Under systemd it reports READY once the socket is bound and the devices are \
            open, pings the watchdog, and takes its sockets from gestured.socket and, when enabled, \
            gestured-websocket.socket (LISTEN_FDS, LISTEN_FDNAMES: `unix`, `websocket`).

            SIGHUP reloads the configuration file and its drop-ins, as they are then (a broken \
            one keeps the running configuration and logs why, at its FILE:LINE:COLUMN); SIGTERM and SIGINT cancel active gestures, tell the clients (`error` `shutdown`), \
            and exit 0 within a second: a client that does not read its socket is closed without it.

            --replay plays a recording (evemu, or `libinput record`'s: its touchscreen, or the \
            device --device names) in place of touchscreens, for runs without hardware. \
            Without --loop it plays once; then the replay device goes (clients get `device` \
            `removed`, as for an unplugged panel) and the daemon stays up, idle (it does not wake \
            at all), serving clients until it is stopped. \
            With --loop each pass starts after the previous one on the engine's clock; a recording \
            whose clock jumps centuries ahead runs out of clock (2^62 µs) after some hundreds of \
            passes, and the replay stops there, as it does at a line the parser refuses halfway \
            through and when a pass of a loop gave no touch frame: once, with the reason logged; \
            its device goes and the daemon goes on serving.

            Examples:
              sudo gestured run
              gestured run --config /etc/gestured/gestured.yaml
              gestured run --socket /tmp/g.sock --replay swipe.evemu --loop
              gestured run --socket /tmp/g.sock --replay session.evemu --speed max
            """
    )

    @Option(name: .long, help: ArgumentHelp("The configuration file (YAML).", valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("The socket path (overrides the configuration).", valueName: "path"))
    var socket: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Play this recording (evemu or libinput record) instead of reading touchscreens.", valueName: "file")
    )
    var replay: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --replay of a libinput recording holding several devices: the one to play (its node or name).",
            valueName: "node|name"))
    var device: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Replay speed: a factor of real time from \(PlaybackSpeed.factors.lowerBound) to "
                + "\(Int(PlaybackSpeed.factors.upperBound)) (1 = as recorded), or 'max'.", valueName: "N|max"),
        transform: { try PlaybackSpeed(parsing: $0, allowsMax: true) })
    var speed: PlaybackSpeed?

    @Flag(name: .long, help: "Replay the recording again and again.")
    var loop = false

    func validate() throws {
        if replay == nil && (loop || speed != nil || device != nil) {
            throw ValidationError("--speed, --loop and --device go with --replay")
        }
    }

    func run() throws {
        var replayOptions: ReplayOptions?
        if let replay {
            let recording = try loadRecording(replay, device: device, command: "run")
            replayOptions = ReplayOptions(
                recording: recording, label: URL(fileURLWithPath: replay).lastPathComponent,
                speed: (speed ?? .factor(1)).factor, loops: loop, file: URL(fileURLWithPath: replay).path)
        }
        do {
            try Daemon.run(
                DaemonOptions(
                    configPath: config, socketPath: socket, replay: replayOptions,
                    environment: ProcessInfo.processInfo.environment))
        } catch {
            printError("gestured run: \(error)")
            throw ExitCode.failure
        }
    }
}

/// Reads and parses a recording (evemu, or `device` of a libinput recording: by default its
/// touchscreen), or prints why not (as `gestured COMMAND: …`) and fails.
func loadRecording(_ path: String, device: String? = nil, command: String) throws -> Recording {
    if path.hasSuffix(".xz") || path.hasSuffix(".gz") || path.hasSuffix(".zst") {
        printError(
            "gestured \(command): \(path): compressed recordings are not read directly; decompress it first (e.g. xz -dk \(path))")
        throw ExitCode.failure
    }
    do {
        // `-`: standard input, as `gestured record -o - | gestured replay -` pipes it.
        return try RecordingFile.recording(at: path == "-" ? "/dev/stdin" : path, device: device)
    } catch {
        printError("gestured \(command): \(error.located(in: path))")
        throw ExitCode.failure
    }
}
