import ArgumentParser
import FoundationEssentials
import GestureActions
import GestureActionsRuntime
import GestureDaemon
import GestureMQTT
import GestureMQTTRuntime
import GestureProtocol
import Glibc
import Logging
import YAMLCoding

/// `gestured mqtt`: a client of the daemon that publishes chosen events to an MQTT broker, with
/// Home Assistant's discovery (docs/FLEET.md, "Home Assistant and MQTT").
struct MQTTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mqtt",
        abstract: "Publish gestures, idle/active and wakes to an MQTT broker (a client of the daemon).",
        discussion: """
            Reads an mqtt file (\(Installed.guide("FLEET")), "Home Assistant and MQTT"; a complete one \
            is \(Installed.example("mqtt/mqtt.yaml"))), connects to the daemon's \
            socket as any client does and to the broker with libmosquitto (TLS with mqtts://, a \
            client certificate, a user and a password read from a file), and publishes under a topic \
            prefix (default gestured/<hostname>): the chosen gesture reports, idle, active and wake, \
            the retained `active` state and availability (`online`, `offline`, also the last will). \
            While the broker is away, messages wait in a queue bounded in messages and bytes (the \
            oldest are dropped and counted); it reconnects with a back-off (1 s doubling to \
            reconnect-max-s). With home-assistant.discovery the kiosk appears in Home Assistant as \
            one device. Inbound topics run named rules of the actions file and nothing else.

            Without --config it reads /etc/gestured/mqtt.yaml, with the drop-ins of FILE.d/*.yaml \
            merged onto it. SIGTERM and SIGINT publish `offline`, disconnect and exit 0. \
            `gestured check-config FILE` checks an mqtt file (and the actions file it names).

            Examples:
              gestured mqtt --config /etc/gestured/mqtt.yaml
              gestured mqtt --socket /tmp/g.sock --config mqtt.yaml --verbose
            """
    )

    @Option(name: .long, help: ArgumentHelp("The mqtt file (YAML).", valueName: "file"))
    var config: String = "/etc/gestured/mqtt.yaml"

    @Option(name: .long, help: ArgumentHelp("The daemon's socket (overrides the file's).", valueName: "path"))
    var socket: String?

    @Flag(help: "Log every reconnection attempt and every message not yet published (debug level).")
    var verbose = false

    func validate() throws {
        try validateSocketOption(socket)
    }

    /// The most bytes of a password file: one line.
    static let maximumPasswordBytes = 1024

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let level: Logger.Level = verbose ? .debug : .info
        let logger = Logger(label: "gestured.mqtt") { label in
            JournalLogHandler(label: label, level: level, environment: environment)
        }
        let loaded: LoadedMQTT
        let password: String?
        do {
            loaded = try loadMQTT(config)
            password = try loaded.configuration.broker.passwordFile.map(Self.readPassword)
        } catch {
            printError("gestured mqtt: \(error)")
            throw ExitCode.failure
        }
        // The keyboard only when an inbound topic's rule types keys.
        let invoked = ActionsConfiguration(
            actions: (loaded.configuration.inbound?.topics ?? []).compactMap {
                loaded.actions?.configuration.rule(named: $0.rule)
            })
        var performer: UinputPerformer?
        if !invoked.keyNames.isEmpty {
            let keyboard = UinputPerformer()
            do {
                try keyboard.prepare(for: invoked)
            } catch {
                printError("gestured mqtt: \(error)")
                throw ExitCode.failure
            }
            performer = keyboard
        }
        let socketPath = socket ?? loaded.configuration.socket ?? GestureProtocol.defaultSocketPath
        let commands = CommandRunner(logger: logger)
        let runner: MQTTRunner
        do {
            runner = try MQTTRunner(
                loaded: loaded, socket: socketPath, hostname: Self.hostname(), version: gesturedVersion,
                password: password, performer: performer, commands: commands, logger: logger)
        } catch {
            printError("gestured mqtt: \(error)")
            throw ExitCode.failure
        }
        let signals = SignalStream([SIGHUP, SIGTERM, SIGINT])
        let broker = loaded.configuration.broker
        var metadata: Logger.Metadata = [
            "file": "\(config)", "broker": "\(broker.url)", "topic-prefix": "\(runner.topics.prefix)",
            "client-id": "\(runner.clientID)",
        ]
        if loaded.files.count > 1 { metadata["drop-ins"] = "\(loaded.files.dropFirst().joined(separator: ","))" }
        if let inbound = loaded.configuration.inbound {
            metadata["inbound"] = "\(inbound.topics.map { runner.topics.command($0.topic) }.joined(separator: ","))"
        }
        logger.info("started", metadata: metadata)
        if !broker.url.tls && !broker.url.isLoopback {
            logger.warning(
                "the broker \(broker.url) is reached without TLS: gestures, and the password if any, cross the network in clear (use mqtts://)"
            )
        }

        let running = Task { await runner.run() }
        for await signal in signals.signals {
            guard signal == SIGHUP else { break }
            logger.warning("SIGHUP: gestured mqtt reads its file at start only; restart it to apply a change")
        }
        logger.info("stopping")
        running.cancel()
        await running.value
        await commands.stopAll()
    }

    /// The first line of the password file (read at most ``maximumPasswordBytes``).
    static func readPassword(_ path: String) throws -> String {
        let bytes: [UInt8]
        do {
            bytes = try YAMLFile.contents(of: path, limit: maximumPasswordBytes, kind: "a password file")
        } catch {
            throw ValidationError("broker.password-file: \(error.description)")
        }
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        guard !line.isEmpty, !line.contains(0) else {
            throw ValidationError("broker.password-file: \(path): its first line (the password) is empty")
        }
        return String(decoding: line, as: UTF8.self)
    }

    static func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Reads an mqtt file and its drop-ins, and the actions file its inbound topics name (key names
/// checked against libevdev's table).
func loadMQTT(_ path: String) throws(YAMLFileError) -> LoadedMQTT {
    try MQTTLoader.parse(try MQTTLoader.read(path)) { actionsFile throws(YAMLFileError) in
        try loadActions(actionsFile)
    }
}
