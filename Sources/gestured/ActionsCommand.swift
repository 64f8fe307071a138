import ArgumentParser
import FoundationEssentials
import GestureActions
import GestureActionsRuntime
import GestureDaemon
import GestureProtocol
import Glibc
import Logging
import VirtualDevices

/// `gestured actions`: a client of the daemon that turns gestures into keys, clicks, scrolling and
/// commands (docs/ACTIONS.md).
struct ActionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "actions",
        abstract: "Turn gestures into keys, clicks, scrolling and commands (a client of the daemon).",
        discussion: """
            Reads an actions file (\(Installed.guide("ACTIONS"))), connects to the daemon's socket as any client \
            does, and carries out the rules: keys on a virtual keyboard, clicks and wheel motion on \
            virtual pointers (uinput: the user must be in the gestured-uinput group), commands \
            started without a shell. Run it as the kiosk's user (/usr/lib/systemd/user/gestured-actions.service \
            or /usr/lib/systemd/system/gestured-actions@.service), so commands run with that user's rights.

            Without --config it reads $XDG_CONFIG_HOME/gestured/actions.yaml (~/.config/…) when that \
            exists, else /etc/gestured/actions.yaml, with the drop-ins of FILE.d/*.yaml merged \
            onto it (\(Installed.guide("ACTIONS")), "Drop-in files"). When the daemon stops or restarts it \
            connects again (100 ms back-off doubling to 5 s). SIGHUP reads the file and its \
            drop-ins again (a broken one keeps the running rules and logs FILE:LINE:COLUMN); SIGTERM and SIGINT stop the running \
            commands and exit 0. `gestured check-config FILE` checks an actions file too.

            --dry-run makes no device and runs nothing (no uinput needed): for each gesture it \
            prints the rule that matched (its number and FILE:LINE:COLUMN) and what it would have \
            sent — keys, a click, wheel motion, a command — from the daemon's socket, or from \
            --gestures FILE, JSON lines as `gestured replay` prints them.

            Examples:
              gestured actions --config ~/.config/gestured/actions.yaml
              gestured actions --socket /tmp/g.sock --config actions.yaml --verbose
              gestured actions --dry-run --socket /tmp/g.sock --config actions.yaml
              gestured replay session.evemu \\
                | gestured actions --dry-run --config actions.yaml --gestures -
            """
    )

    @Option(name: .long, help: ArgumentHelp("The actions file (YAML).", valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("The daemon's socket (overrides the file's).", valueName: "path"))
    var socket: String?

    @Flag(help: "Log every command's end and every reconnection attempt (debug level).")
    var verbose = false

    @Flag(help: "Print what each gesture would do (the rule, the keys, click, wheel or command) instead of doing it.")
    var dryRun = false

    @Option(
        help: ArgumentHelp(
            "With --dry-run: read the gestures from this file of JSON lines (as `gestured replay` prints them; - for standard input) instead of the daemon.",
            valueName: "file"))
    var gestures: String?

    func validate() throws {
        if gestures != nil && !dryRun { throw ValidationError("--gestures goes with --dry-run") }
        try validateSocketOption(socket)
    }

    /// The file read without --config.
    static func defaultConfigPath(_ environment: [String: String]) -> String {
        let home = environment["HOME"].map { $0 + "/.config" }
        if let base = environment["XDG_CONFIG_HOME"] ?? home {
            let path = base + "/gestured/actions.yaml"
            if access(path, F_OK) == 0 { return path }
        }
        return "/etc/gestured/actions.yaml"
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let level: Logger.Level = verbose ? .debug : .info
        let logger = Logger(label: "gestured.actions") { label in
            JournalLogHandler(label: label, level: level, environment: environment)
        }
        let path = config ?? Self.defaultConfigPath(environment)
        let loaded: LoadedActions
        do {
            loaded = try loadActions(path)
        } catch {
            printError("gestured actions: \(error)")
            throw ExitCode.failure
        }
        if dryRun {
            var dry = ActionsDryRun(loaded)
            if let gestures {
                try dry.run(lines: gestures)
            } else {
                try await dry.run(socket: socket ?? loaded.configuration.socket ?? GestureProtocol.defaultSocketPath)
            }
            return
        }
        let performer = UinputPerformer()
        do {
            try performer.prepare(for: loaded.configuration)
        } catch {
            printError("gestured actions: \(error). (--dry-run shows what it would do, without uinput.)")
            throw ExitCode.failure
        }
        let socketPath = socket ?? loaded.configuration.socket ?? GestureProtocol.defaultSocketPath
        let commands = CommandRunner(logger: logger)
        let runner = ActionsRunner(
            loaded: loaded, socket: socketPath, performer: performer, commands: commands, logger: logger)
        // Before `started`: a SIGHUP or SIGTERM sent once it is logged finds its handler.
        let signals = SignalStream([SIGHUP, SIGTERM, SIGINT])
        var metadata: Logger.Metadata = ["file": "\(path)", "rules": "\(loaded.configuration.actions.count)"]
        if loaded.files.count > 1 { metadata["drop-ins"] = "\(loaded.files.dropFirst().joined(separator: ","))" }
        for (device, node) in performer.devnodes { metadata[device] = "\(node)" }
        logger.info("started", metadata: metadata)

        let running = Task { await runner.run() }
        for await signal in signals.signals {
            guard signal == SIGHUP else { break }
            do {
                try runner.reload(try loadActions(path))
            } catch {
                logger.error("reload refused, the running actions stay: \(error)")
            }
        }
        logger.info("stopping")
        running.cancel()
        await commands.stopAll()
        await running.value
    }
}

/// Reads an actions file and its drop-ins, checking key names against libevdev's table.
func loadActions(_ path: String) throws(ActionsFileError) -> LoadedActions {
    try ActionsLoader.parse(try ActionsLoader.read(path), isKeyName: isKeyName)
}

/// Whether a name is a Linux key code's (libevdev's table).
func isKeyName(_ name: String) -> Bool { EventCode.code(ofType: EventCode.evKey, named: name) != nil }
