import ArgumentParser
import Dispatch
import GestureDaemon
import GestureEngine
import Glibc

/// The `gestured` command and its subcommands.
struct Gestured: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestured",
        abstract: "A touchscreen gesture daemon.",
        discussion: """
            The guides and examples the commands' help names are installed with the package in \
            \(Installed.docs) (the guides gzipped: zless reads them); in a source checkout they are \
            the repository's docs and examples directories. Try it without a panel: gestured replay \
            --pretty \(Installed.example("recordings/demo.evemu")).
            """,
        version: gesturedVersion,
        subcommands: [
            RunCommand.self, ReplayCommand.self, ListenCommand.self, DevicesCommand.self, SimulateCommand.self,
            CheckConfigCommand.self, ConfigCommand.self, ActionsCommand.self, StatusCommand.self, RecordCommand.self,
            MQTTCommand.self,
        ]
    )
}

/// A synchronous entry point. The daemon (`run`) and the other synchronous commands never touch
/// Swift concurrency, whose libdispatch thread pool on Linux keeps a 1 Hz monitor timer running
/// once started (an idle daemon must not wake up at all: docs/PERFORMANCE.md). Async commands
/// (`listen`, a client) run in a task while the main thread waits for it.
@main
enum Main {
    static func main() {
        refuseUnknownCommand(Array(CommandLine.arguments.dropFirst()))
        var command: any ParsableCommand
        do {
            command = try Gestured.parseAsRoot()
        } catch {
            Gestured.exit(withError: error)
        }
        guard let asyncCommand = command as? any AsyncParsableCommand else {
            do {
                try command.run()
            } catch {
                Gestured.exit(withError: error)
            }
            return
        }
        // The command may hop to the main actor, whose executor is the main dispatch queue: the
        // main thread serves it (dispatchMain never returns; the task ends the process).
        nonisolated(unsafe) var running = asyncCommand
        Task {
            do {
                try await running.run()
                Gestured.exit()
            } catch {
                Gestured.exit(withError: error)
            }
        }
        dispatchMain()
    }

    /// `gestured foo`: the parser's own word is "Unexpected argument 'foo'"; say it is not a
    /// command, the nearest one, and the commands there are, with the parser's usage exit code.
    static func refuseUnknownCommand(_ arguments: [String]) {
        guard let first = arguments.first, !first.hasPrefix("-"), first != "help" else { return }
        let names = Gestured.configuration.subcommands.compactMap { $0.configuration.commandName }
        guard !names.contains(first) else { return }
        printError(
            "gestured: '\(first)' is not a command\(NearestWord.hint(for: first, among: names)) "
                + "(commands: \(names.joined(separator: ", ")); gestured --help)")
        exit(ExitCode.validationFailure.rawValue)
    }
}
