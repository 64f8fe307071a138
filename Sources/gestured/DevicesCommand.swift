import ArgumentParser
import FoundationEssentials
import GestureDaemon
import Logging
import TouchInput

/// `gestured devices [--json]`: what the daemon would see.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List touchscreens, their capabilities and sizes, and why other input devices are skipped.",
        discussion: """
            Touchscreens are found through udev (ID_INPUT_TOUCHSCREEN=1) when udevd runs, otherwise by \
            opening each /dev/input/event* node and reading its capabilities. Reading event nodes needs \
            membership of the 'input' group (or root). Exits 0 when no touchscreen is present.

            Examples:
              gestured devices
              gestured devices --json | jq '.touchscreens[].devnode'
              gestured devices --discovery capabilities
              gestured devices --config /etc/gestured/gestured.yaml
            """
    )

    @Flag(help: "Print JSON (keys sorted) instead of text.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Apply this configuration's device entries (enabled, rotation, size, force-touchscreen).",
            valueName: "file"))
    var config: String?

    @Option(
        help: ArgumentHelp(
            "How to find devices: 'udev' or 'capabilities' (default: udev when udevd runs).", valueName: "mode"))
    var discovery: String?

    func validate() throws {
        if let discovery, Discovery(rawValue: discovery) == nil {
            throw ValidationError("--discovery must be 'udev' or 'capabilities'")
        }
    }

    func run() throws {
        let rules: [DeviceRule]
        do {
            rules = try config.map { try ConfigurationLoader.load(contentsOf: $0).deviceRules } ?? []
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
        var logger = Logger(label: "gestured.devices")
        logger.logLevel = .error
        let report: DeviceReport
        do {
            let finder = try DeviceDiscovery(
                mode: discovery.flatMap(Discovery.init(rawValue:)), rules: rules, logger: logger)
            report = try DeviceReport(discovery: finder, rules: rules, logger: logger)
        } catch {
            printError("error: cannot list input devices: \(error)")
            throw ExitCode.failure
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = try encoder.encode(report)
            print(String(decoding: data, as: UTF8.self))
        } else {
            // Device names are the devices' own: shown, not obeyed by the terminal.
            let lines = report.text.split(separator: "\n", omittingEmptySubsequences: false)
            print(lines.map(printable).joined(separator: "\n"), terminator: "")
        }
    }
}
