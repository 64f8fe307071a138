import ArgumentParser
import FoundationEssentials
import GestureActions
import GestureDaemon

/// `gestured config --default`: the built-in configuration as YAML.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the built-in configuration as YAML.",
        discussion: """
            The built-in configuration is what `gestured run` uses without --config. Every \
            setting is spelled out, so the output is a complete starting point for your own file \
            (docs/CONFIGURATION.md explains each key).

            Examples:
              gestured config --default > /etc/gestured/gestured.yaml
              gestured config --default > gestured.yaml && gestured check-config gestured.yaml
            """
    )

    @Flag(name: .customLong("default"), help: "Print the built-in configuration.")
    var builtIn = false

    func validate() throws {
        guard builtIn else { throw ValidationError("say which configuration: --default") }
    }

    func run() throws {
        let header = """
            gestured built-in configuration (`gestured config --default`).
            Keys and defaults: docs/CONFIGURATION.md; recognizer parameters: docs/RECOGNIZERS.md.
            """
        print(try ConfigurationLoader.yaml(.builtIn, header: header), terminator: "")
    }
}

/// `gestured check-config FILE`: exit 0 when valid, else `FILE:LINE:COLUMN: message`.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check a configuration file without running the daemon.",
        discussion: """
            Exits 0 and prints a summary when the file is valid. Otherwise prints \
            FILE:LINE:COLUMN: message on standard error and exits 1 — the same check `gestured \
            run` and a SIGHUP reload make, so a file that passes here loads there. A file with \
            `actions:` at the top is an actions file (`gestured actions`; docs/ACTIONS.md) and is \
            checked as one, key names included.

            Example:
              gestured check-config /etc/gestured/gestured.yaml && systemctl reload gestured
            """
    )

    @Argument(help: "The configuration file.", completion: .file(extensions: ["yaml", "yml"]))
    var file: String

    func run() throws {
        // Read once, then told apart: an actions file or a configuration.
        var data = Data()
        try check { () throws(ConfigurationFileError) in data = try ConfigurationLoader.contents(of: file) }
        if ActionsLoader.isActionsFile(String(decoding: data, as: UTF8.self)) {
            return try checkActions(Array(data))
        }
        try check { () throws(ConfigurationFileError) in
            let configuration = try ConfigurationLoader.load(data, file: file)
            let engine = configuration.engineConfiguration
            let source = configuration.recognizers == nil ? " (the built-in set)" : ""
            print(
                "\(file): valid: \(engine.recognizers.count) recognizers\(source), "
                    + "\(engine.regions.count) regions, \(configuration.devices.count) device entries")
        }
    }

    /// Runs a check; its error is printed and the exit status is 1.
    private func check<E: Error>(_ body: () throws(E) -> Void) throws {
        do {
            try body()
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
    }

    /// An actions file: the check `gestured actions` and its reload make.
    private func checkActions(_ bytes: [UInt8]) throws {
        try check { () throws(ActionsFileError) in
            let configuration = try parseActions(bytes, file: file).configuration
            print(
                "\(file): valid actions file: \(configuration.actions.count) rules on "
                    + "\(configuration.recognizerNames.count) recognizers, \(configuration.keyNames.count) keys")
        }
    }
}
