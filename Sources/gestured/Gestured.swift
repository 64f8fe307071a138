import ArgumentParser
import Dispatch
import GestureDaemon

/// The `gestured` command and its subcommands.
struct Gestured: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestured",
        abstract: "A touchscreen gesture daemon.",
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
}
