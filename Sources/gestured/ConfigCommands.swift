import ArgumentParser
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
              gestured config --default | gestured check-config /dev/stdin
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
            run` and a SIGHUP reload make, so a file that passes here loads there.

            Example:
              gestured check-config /etc/gestured/gestured.yaml && systemctl reload gestured
            """
    )

    @Argument(help: "The configuration file.", completion: .file(extensions: ["yaml", "yml"]))
    var file: String

    func run() throws {
        do {
            let configuration = try ConfigurationLoader.load(contentsOf: file)
            let engine = configuration.engineConfiguration
            let source = configuration.recognizers == nil ? " (the built-in set)" : ""
            print(
                "\(file): valid: \(engine.recognizers.count) recognizers\(source), "
                    + "\(engine.regions.count) regions, \(configuration.devices.count) device entries")
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
    }
}
