import ArgumentParser
import FoundationEssentials
import GestureDaemon

/// `gestured replay FILE...`: recordings through the engine, offline and deterministic.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Play recordings (evemu, libinput record) through the engine and print the gestures as JSON lines.",
        discussion: """
            No daemon, no socket, no clock: each recording is played on its own timestamps, and \
            every gesture is printed as one `gesture` object per line in the socket protocol's \
            schema (\(Installed.guide("PROTOCOL"))). The same files and configuration always print the same \
            bytes, so the output can be diffed. A recording is an evemu file (`evemu-record`, \
            `gestured record`) or a `libinput record` file (libinput-tools), whose touchscreen is \
            played (--device chooses another of its devices); \(Installed.guide("RECORDING")) shows how to make \
            one and what to do with it.

            With --explain, `explain` objects come in time order with the gestures: why each \
            recognizer failed (the check, the measured value, the limit and its configuration key) \
            and every arbitration decision that held, blocked or cancelled one, with its rule \
            (R1–R9, \(Installed.guide("ARBITRATION"))). --pretty prints readable lines instead of JSON. \
            \(Installed.guide("TUNING")) shows how to use them when a gesture does not fire.

            Examples:
              gestured replay session.evemu
              gestured replay --config kiosk.yaml a.evemu b.evemu \\
                | jq -c '{name, state, direction}'
              gestured replay --touches taps.evemu
              gestured replay --explain --pretty --config kiosk.yaml session.evemu
              gestured replay --svg session.svg session.evemu > session.jsonl
            """
    )

    @Argument(
        help: ArgumentHelp(
            "evemu or libinput recordings (plain text; decompress .xz first); - reads standard input.", valueName: "file"))
    var files: [String]

    @Option(
        name: .long,
        help: ArgumentHelp(
            "In libinput recordings that hold several devices: the one to play (its node or name).",
            valueName: "node|name"))
    var device: String?

    @Option(name: .long, help: ArgumentHelp("The configuration file (default: the built-in one).", valueName: "file"))
    var config: String?

    @Flag(
        name: .long, help: "Also print `touch` messages: the touches as views (raw-touch subscribers) would see them.")
    var touches = false

    @Flag(
        name: .long,
        help: "Also print `explain` messages: why recognizers failed, waited, or were blocked or cancelled.")
    var explain = false

    @Flag(help: "Readable lines instead of JSON.")
    var pretty = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also draw the recording to this SVG file: the panel to scale, each touch's path, each gesture where it was recognized (one recording).",
            valueName: "file"))
    var svg: String?

    func validate() throws {
        if svg != nil && files.count != 1 { throw ValidationError("--svg draws one recording; give one file") }
    }

    func run() throws {
        let configuration: DaemonConfiguration
        do {
            configuration = try config.map { try ConfigurationLoader.load(contentsOf: $0) } ?? .builtIn
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
        var replay = try OfflineReplay(
            configuration: configuration, includeTouches: touches, includeExplanations: explain)
        var picture = svg.map { _ in ReplayPicture(configuration: configuration.engineConfiguration) }
        var failed = false
        for file in files {
            var printer = MessagePrinter(pretty: true)  // each recording has its own clock
            let input = OfflineReplay.Input(
                label: URL(fileURLWithPath: file).lastPathComponent, recording: try loadRecording(file, device: device, command: "replay"))
            do {
                let note = { (text: String) in printError("gestured replay: \(input.label): \(text)") }
                if pretty {
                    try replay.play(input, observe: { picture?.add($1, device: $0) }, note: note) { message, _ in
                        picture?.add(message)
                        say(printer.line(message, socket: file))
                    }
                } else {
                    try replay.play(
                        input, observe: { picture?.add($1, device: $0) }, inspect: { picture?.add($0) }, note: note,
                        write: { line in line.withUnsafeBytes { writeAll(1, $0) } })
                }
            } catch {
                printError("gestured replay: \(error)")
                failed = true
            }
        }
        if let svg, let picture {
            do {
                try Data(picture.svg().utf8).write(to: URL(fileURLWithPath: svg))
            } catch {
                printError("gestured replay: cannot write \(svg): \(error)")
                throw ExitCode.failure
            }
        }
        if failed { throw ExitCode.failure }
    }
}
