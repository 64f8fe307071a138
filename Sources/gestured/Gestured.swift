import ArgumentParser

@main
struct Gestured: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestured",
        abstract: "A touchscreen gesture daemon.",
        subcommands: [DevicesCommand.self, SimulateCommand.self]
    )
}
