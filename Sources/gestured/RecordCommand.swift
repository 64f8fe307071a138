import ArgumentParser
import GestureActionsRuntime
import GestureClient
import GestureEngine
import GestureProtocol
import TouchInput

#if canImport(Glibc)
import Glibc
#endif

/// `gestured record`: a panel's raw events through the running daemon, which holds the grab,
/// into an evemu file that `gestured replay` plays back.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a panel's raw events through the daemon into an evemu file.",
        discussion: """
            The daemon sends the panel's description and every event it reads from the panel, \
            as it reads them, before it makes frames of them: what evemu-record would have \
            written, and it works while the daemon holds the panel grabbed (passthrough), when \
            evemu-record and libinput record read nothing. Stop with Ctrl-C (the file is ended \
            cleanly) or give --duration. `gestured replay FILE` plays the file to the gestures \
            the daemon saw. \(Installed.guide("RECORDING")) shows the whole loop: record, explain, draw, tune, \
            check.

            Only who may read the panel itself may record it: root, the daemon's user, a user \
            the panel's node lets read it, and the configuration's record-group; anyone else is \
            refused (permission-denied). The file is created readable by its owner only: raw \
            touches can be a PIN typed on the screen.

            With --explain, the daemon's decisions (its `gesture` and `explain` messages for the \
            panel) are kept in the file as comment lines at their place among the events, \
            `# gestured: {...}`, which evemu tools and `gestured replay` skip; \
            `grep '^# gestured: ' FILE | cut -c 13-` gives them back as JSON lines.

            Examples:
              gestured record -o misfire.evemu
              gestured record --device event5 --duration 30s -o session.evemu
              gestured record --explain -o misfire.evemu \\
                && gestured replay --explain misfire.evemu
            """
    )

    @Option(name: .long, help: "The daemon's socket.")
    var socket = GestureProtocol.defaultSocketPath

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The panel: its label (event5, as `gestured listen` shows) or its node; needed when the daemon has several.",
            valueName: "label|node"))
    var device: String?

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("Where to write the evemu file (default: standard output).", valueName: "file"))
    var output: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Stop after this long (e.g. 500ms, 30s, 5m, 1h; at most 24h); default: until Ctrl-C (a second Ctrl-C quits at once).",
            valueName: "duration"))
    var duration: String?

    @Flag(help: "Also keep the daemon's gestures and explanations, as `# gestured:` comment lines.")
    var explain = false

    func validate() throws {
        try validateSocketOption(socket)
        if let duration, Self.milliseconds(duration) == nil {
            throw ValidationError("--duration: expected a duration from 1ms to 24h, such as 500ms, 30s, 5m or 1h")
        }
    }

    /// `500ms`, `30s`, `5m`, `1h` (a number, fractions allowed, and its unit) in milliseconds,
    /// from 1 to a day; nil otherwise.
    static func milliseconds(_ text: String) -> Int? {
        let units: [(suffix: String, ms: Double)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        guard let unit = units.first(where: { text.hasSuffix($0.suffix) }),
            let value = Double(text.dropLast(unit.suffix.count)), value.isFinite
        else { return nil }
        let ms = (value * unit.ms).rounded()
        guard ms >= 1, ms <= Double(RecordOptions.maximumDurationMS) else { return nil }
        return Int(ms)
    }

    func run() async throws {
        // Before connecting: a Ctrl-C from now on ends the recording instead of the process.
        let signals = SignalStream([SIGINT, SIGTERM])
        let options = RecordOptions(device: device, durationMS: duration.flatMap(Self.milliseconds))
        let outcome: Outcome
        do {
            outcome = try await GestureClient.connect(to: socket) { client in
                try await record(client, options: options, signals: signals.signals)
            }
        } catch let error as GestureClientError {
            var advice = ""
            if case .refused(let refusal) = error, refusal.code == .permissionDenied {
                advice = " (run it as a user who may read the panel, or see record-group in \(Installed.guide("RECORDING")))"
            }
            printError("gestured record: \(error.advised)\(advice)")
            throw ExitCode.failure
        } catch let error as RecordFileError {
            printError("gestured record: \(error.message)")
            throw ExitCode.failure
        }
        withExtendedLifetime(signals) {}
        let place = output ?? "standard output"
        switch outcome {
        case .stopped(let label, let events, let reason):
            printError("gestured record: \(events) events of \(label) written to \(place) (\(Self.describe(reason)))")
        case .cut(let label, let events, let why):
            printError("gestured record: \(events) events of \(label) written to \(place); the recording was cut: \(why)")
            throw ExitCode.failure
        }
    }

    /// How a recording ended.
    enum Outcome: Sendable {
        /// The daemon ended it and said so: the file holds every event it sent.
        case stopped(label: String, events: Int, reason: RecordingMessage.StopReason)
        /// The connection ended first (the daemon stopped, or this client read too slowly): the
        /// file holds what came, each line whole.
        case cut(label: String, events: Int, why: String)
    }

    static func describe(_ reason: RecordingMessage.StopReason) -> String {
        switch reason {
        case .requested: "stopped"
        case .duration: "its duration ran out"
        case .deviceRemoved: "the panel went away"
        case .daemonStopping: "the daemon is stopping"
        }
    }

    private func record(
        _ client: GestureClient, options: RecordOptions, signals: AsyncStream<Int32>
    ) async throws -> Outcome {
        if explain {
            // Before `record`, so that no decision about the recorded events comes before it
            // took effect; the other panels' are left out below.
            try await client.subscribe(Subscription(explain: true))
        }
        let started = try await client.record(options)
        guard let description = started.description else {
            throw GestureClientError.protocolViolation("the recording started without the panel's description")
        }
        let file = try RecordFile(path: output)
        defer { file.close() }
        file.write(EvemuWriter(device: description).text)
        printError(
            "gestured record: recording \(started.device) (\"\(description.name)\") into \(output ?? "standard output"); "
                + (options.durationMS.map { "stops after \($0) ms or " } ?? "") + "Ctrl-C stops")
        // Ctrl-C (or SIGTERM) asks the daemon to stop; what it sent until then still comes,
        // and the `stopped` message after the last of it ends the loop below. A second one ends
        // the command at once (every line written so far is whole: each is one write).
        let stopper = Task {
            var asked = false
            for await _ in signals {
                if asked { Glibc.exit(130) }
                asked = true
                Task { try? await client.stopRecording() }
            }
        }
        defer { stopper.cancel() }
        var encoder = LineEncoder()
        var events = 0
        for try await message in client.messages {
            switch message {
            case .raw(let raw) where raw.device == started.device:
                var text = ""
                for event in raw.events { text += EvemuWriter.line(event) }
                file.write(text)
                events += raw.events.count
            case .recording(let recording) where recording.event == .stopped:
                return .stopped(label: started.device, events: recording.events ?? events, reason: recording.reason ?? .requested)
            case .gesture(let gesture) where explain && gesture.device == started.device:
                file.write(comment(.gesture(gesture), &encoder))
            case .explain(let explanation) where explain && explanation.device == started.device:
                file.write(comment(.explain(explanation), &encoder))
            case .error(let error) where error.code.closesConnection:
                return .cut(label: started.device, events: events, why: "\(error)")
            default:
                continue
            }
        }
        return .cut(label: started.device, events: events, why: "the connection ended")
    }

    /// A message as an evemu comment line, its JSON exactly as the daemon sent it.
    private func comment(_ message: ServerMessage, _ encoder: inout LineEncoder) -> String {
        guard let line = try? encoder.encode(message) else { return "" }
        return "# gestured: " + String(decoding: line, as: UTF8.self)
    }
}

/// Where the recording goes: a new file readable by its owner only, or standard output.
final class RecordFile: Sendable {
    private let fd: Int32

    init(path: String?) throws(RecordFileError) {
        guard let path, path != "-" else {
            fd = 1
            return
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw RecordFileError(message: "cannot write \(path): \(String(cString: strerror(errno)))") }
        self.fd = fd
    }

    func write(_ text: String) { writeAll(fd, text) }

    func close() {
        if fd != 1 { _ = Glibc.close(fd) }
    }
}

struct RecordFileError: Error {
    var message: String
}
