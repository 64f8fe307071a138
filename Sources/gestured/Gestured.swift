import ArgumentParser
import GestureDaemon

@main
struct Gestured: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestured",
        abstract: "A touchscreen gesture daemon.",
        version: gesturedVersion,
        subcommands: [
            RunCommand.self, ReplayCommand.self, ListenCommand.self, DevicesCommand.self, SimulateCommand.self,
            CheckConfigCommand.self, ConfigCommand.self,
        ]
    )
}
