import ArgumentParser

@main
struct Gestured: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestured",
        abstract: "A touchscreen gesture daemon.",
        subcommands: [
            ListenCommand.self, DevicesCommand.self, SimulateCommand.self, ConfigCommand.self, CheckConfigCommand.self,
        ]
    )
}
