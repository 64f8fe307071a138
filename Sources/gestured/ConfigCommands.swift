import ArgumentParser
import FoundationEssentials
import Glibc
import GestureActions
import GestureDaemon
import GestureEngine
import GestureMQTT
import YAMLCoding

/// `gestured config --default`: the built-in configuration as YAML; `gestured config --effective
/// [FILE]`: a file and its drop-ins, merged.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the built-in configuration, or a file and its drop-ins merged, as YAML.",
        discussion: """
            --default prints the built-in configuration: what `gestured run` uses without \
            --config. Every setting is spelled out, so the output is a complete starting point \
            for your own file (\(Installed.guide("CONFIGURATION")) explains each key).

            --effective prints FILE (default /etc/gestured/gestured.yaml) with the drop-ins of \
            FILE.d/ merged onto it, as `gestured run --config FILE` and a reload read them \
            (\(Installed.guide("CONFIGURATION")), "Drop-in files"), once the set passes the check of \
            `check-config`; the comment at the top names the files read. An actions file (with \
            `actions:` at the top; \(Installed.guide("ACTIONS"))) is merged with its drop-ins the same way.

            Examples:
              gestured config --default > /etc/gestured/gestured.yaml
              gestured config --default > my.yaml && gestured check-config my.yaml
              gestured config --effective
              gestured config --effective /etc/gestured/actions.yaml
            """
    )

    @Flag(name: .customLong("default"), help: "Print the built-in configuration.")
    var builtIn = false

    @Flag(help: "Print FILE with its drop-ins merged onto it.")
    var effective = false

    @Argument(
        help: "With --effective: the configuration or actions file (default /etc/gestured/gestured.yaml).",
        completion: .file(extensions: ["yaml", "yml"]))
    var file: String?

    func validate() throws {
        guard builtIn != effective else {
            throw ValidationError(
                builtIn
                    ? "give --default or --effective, not both: --default prints the built-in configuration, "
                        + "--effective [FILE] a file with its drop-ins merged"
                    : "give --default (the built-in configuration) or --effective [FILE] (a file with its drop-ins merged)")
        }
        if builtIn && file != nil {
            throw ValidationError("--default takes no file (the built-in configuration has none)")
        }
    }

    func run() throws {
        guard effective else {
            let header = ConfigurationLoader.builtInHeader
            print(try ConfigurationLoader.yaml(.builtIn, header: header), terminator: "")
            return
        }
        let file = file ?? "/etc/gestured/gestured.yaml"
        let checked = try CheckedSet.read(file, command: "config")
        let header = [
            "\(file) with the drop-ins of \(YAMLFileSet.directory(of: file))/ merged onto it "
                + "(`gestured config --effective`); \(Installed.guide("CONFIGURATION")), \"Drop-in files\".",
            "Read, in this order: " + checked.set.files.joined(separator: ", "),
        ] + YAMLFileSet.ignoredDropIns(of: file)
        let document = checked.set.root ?? YAMLNode(.mapping([]), at: YAMLMark(line: 1, column: 1))
        print(header.map { "# " + $0 }.joined(separator: "\n"))
        print(try document.emitted(), terminator: "")
    }
}

/// `gestured check-config FILE`: exit 0 when valid, else `FILE:LINE:COLUMN: message`.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check a configuration file and its drop-ins without running the daemon.",
        discussion: """
            Exits 0 and prints a summary when the file and the drop-ins in FILE.d/ merged onto \
            it are valid, and which drop-ins it read. Otherwise prints FILE:LINE:COLUMN: message \
            (FILE: the file or drop-in the problem is in) on standard error and exits 1 — the \
            same check `gestured run` and a SIGHUP reload make, so a set that passes here loads \
            there. A file with `actions:` at the top is an actions file (`gestured actions`; \
            \(Installed.guide("ACTIONS"))) and is checked as one, key names included; each rule's `on:` is \
            checked against the recognizers of the daemon's configuration given with \
            --daemon-config, else the built-in set: a name neither has is a warning (a client may \
            define it at run time), with the nearest name. Files in FILE.d/ that are not read \
            (not *.yaml) are named. A file with `broker:` at the top is an mqtt \
            file (`gestured mqtt`; \(Installed.guide("FLEET"))), checked with the actions file \
            its inbound topics name.

            Examples:
              gestured check-config /etc/gestured/gestured.yaml \\
                && systemctl reload gestured
              gestured check-config actions.yaml --daemon-config kiosk.yaml
            """
    )

    @Argument(help: "The configuration file.", completion: .file(extensions: ["yaml", "yml"]))
    var file: String

    @Option(
        help: ArgumentHelp(
            "For an actions file: the daemon's configuration whose recognizers `on:` names (default: the built-in set).",
            valueName: "file"),
        completion: .file(extensions: ["yaml", "yml"]))
    var daemonConfig: String?

    func run() throws {
        let checked = try CheckedSet.read(file, command: "check-config")
        switch checked.kind {
        case .configuration(let configuration):
            let engine = configuration.engineConfiguration
            let source = configuration.recognizers == nil ? " (the built-in set)" : ""
            print(
                "\(file): valid: \(counted(engine.recognizers.count, "recognizer"))\(source), "
                    + "\(counted(engine.regions.count, "region")), "
                    + counted(configuration.devices.count, "device entry", plural: "device entries"))
        case .actions(let loaded):
            let configuration = loaded.configuration
            print(
                "\(file): valid actions file: \(counted(configuration.actions.count, "rule")) on "
                    + "\(counted(configuration.recognizerNames.count, "recognizer")), "
                    + counted(configuration.keyNames.count, "key"))
            var daemon = DaemonConfiguration.builtIn
            var source = "is in the built-in set (--daemon-config names the daemon's file)"
            if let daemonConfig {
                guard case .configuration(let given) = try CheckedSet.read(daemonConfig, command: "check-config").kind
                else {
                    printError("gestured check-config: --daemon-config \(daemonConfig) is not the daemon's configuration")
                    throw ExitCode.failure
                }
                (daemon, source) = (given, "is in \(daemonConfig)")
            }
            let summaries = daemon.engineConfiguration.recognizers.map {
                RecognizerSummary(name: $0.name, kind: $0.kind, owner: .configuration, region: $0.region)
            }
            for warning in ActionsCheck.warnings(loaded, against: summaries, source: source) {
                printError(warning)
            }
        case .mqtt(let loaded):
            let configuration = loaded.configuration
            let inbound = configuration.inbound.map { " (rules of \($0.actionsFile))" } ?? ""
            print(
                "\(file): valid mqtt file: broker \(configuration.broker.url), QoS \(configuration.qos), "
                    + counted(configuration.inbound?.topics.count ?? 0, "inbound topic") + "\(inbound), Home Assistant discovery "
                    + (configuration.homeAssistant.discovery ? "on" : "off"))
        }
        let names = checked.set.dropIns.map { String($0.split(separator: "/").last ?? "") }
        print(
            "drop-ins (\(YAMLFileSet.directory(of: file))/): "
                + (names.isEmpty ? "none" : names.joined(separator: ", ")))
        for ignored in YAMLFileSet.ignoredDropIns(of: file) { printError("gestured check-config: \(ignored)") }
    }
}

/// A configuration or actions file and its drop-ins, read, merged and fully checked, as
/// `check-config` and `config --effective` take them; an error is printed and exits 1.
struct CheckedSet {
    enum Kind {
        case configuration(DaemonConfiguration)
        case actions(LoadedActions)
        case mqtt(LoadedMQTT)
    }

    var set: YAMLFileSet
    var kind: Kind

    static func read(_ file: String, command: String) throws -> CheckedSet {
        var info = stat()
        let missing = stat(file, &info) != 0 && errno == ENOENT
        if missing || info.st_mode & S_IFMT == S_IFDIR {
            let what = missing ? "no such file" : "a directory"
            let builtIn = command == "config" ? ", or print the built-in configuration: gestured config --default" : ""
            printError("gestured \(command): \(file): \(what); give a configuration or actions file\(builtIn)")
            throw ExitCode.failure
        }
        do {
            // The file itself tells its kind: an actions file has `actions` at the top, an mqtt
            // file `broker`.
            let data = try ConfigurationLoader.contents(of: file)
            if MQTTLoader.isMQTTFile(String(decoding: data, as: UTF8.self)) {
                let set = try MQTTLoader.read(file)
                let loaded = try MQTTLoader.parse(set) { path throws(YAMLFileError) in try loadActions(path) }
                return CheckedSet(set: set, kind: .mqtt(loaded))
            }
            if ActionsLoader.isActionsFile(String(decoding: data, as: UTF8.self)) {
                let set = try ActionsLoader.read(file)
                return CheckedSet(set: set, kind: .actions(try ActionsLoader.parse(set, isKeyName: isKeyName)))
            }
            let set = try ConfigurationLoader.read(file)
            return CheckedSet(set: set, kind: .configuration(try ConfigurationLoader.load(set)))
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
    }
}
