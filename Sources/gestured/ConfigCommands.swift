import ArgumentParser
import FoundationEssentials
import GestureActions
import GestureDaemon
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
            for your own file (docs/CONFIGURATION.md explains each key).

            --effective prints FILE (default /etc/gestured/gestured.yaml) with the drop-ins of \
            FILE.d/ merged onto it, as `gestured run --config FILE` and a reload read them \
            (docs/CONFIGURATION.md, "Drop-in files"), once the set passes the check of \
            `check-config`; the comment at the top names the files read. An actions file (with \
            `actions:` at the top; docs/ACTIONS.md) is merged with its drop-ins the same way.

            Examples:
              gestured config --default > /etc/gestured/gestured.yaml
              gestured config --default > gestured.yaml && gestured check-config gestured.yaml
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
        guard builtIn != effective else { throw ValidationError("say which configuration: --default or --effective") }
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
        let checked = try CheckedSet.read(file)
        let header = [
            "\(file) with the drop-ins of \(YAMLFileSet.directory(of: file))/ merged onto it "
                + "(`gestured config --effective`); docs/CONFIGURATION.md, \"Drop-in files\".",
            "Read, in this order: " + checked.set.files.joined(separator: ", "),
        ]
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
            docs/ACTIONS.md) and is checked as one, key names included; a file with `broker:` at \
            the top is an mqtt file (`gestured mqtt`; docs/FLEET.md), checked with the actions \
            file its inbound topics name.

            Example:
              gestured check-config /etc/gestured/gestured.yaml && systemctl reload gestured
            """
    )

    @Argument(help: "The configuration file.", completion: .file(extensions: ["yaml", "yml"]))
    var file: String

    func run() throws {
        let checked = try CheckedSet.read(file)
        switch checked.kind {
        case .configuration(let configuration):
            let engine = configuration.engineConfiguration
            let source = configuration.recognizers == nil ? " (the built-in set)" : ""
            print(
                "\(file): valid: \(engine.recognizers.count) recognizers\(source), "
                    + "\(engine.regions.count) regions, \(configuration.devices.count) device entries")
        case .actions(let loaded):
            let configuration = loaded.configuration
            print(
                "\(file): valid actions file: \(configuration.actions.count) rules on "
                    + "\(configuration.recognizerNames.count) recognizers, \(configuration.keyNames.count) keys")
        case .mqtt(let loaded):
            let configuration = loaded.configuration
            let inbound = configuration.inbound.map { " (rules of \($0.actionsFile))" } ?? ""
            print(
                "\(file): valid mqtt file: broker \(configuration.broker.url), QoS \(configuration.qos), "
                    + "\(configuration.inbound?.topics.count ?? 0) inbound topics\(inbound), Home Assistant discovery "
                    + (configuration.homeAssistant.discovery ? "on" : "off"))
        }
        let names = checked.set.dropIns.map { String($0.split(separator: "/").last ?? "") }
        print(
            "drop-ins (\(YAMLFileSet.directory(of: file))/): "
                + (names.isEmpty ? "none" : names.joined(separator: ", ")))
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

    static func read(_ file: String) throws -> CheckedSet {
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
