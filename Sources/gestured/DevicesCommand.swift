import ArgumentParser
import FoundationEssentials
import GestureDaemon
import Glibc
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
            printError("gestured devices: cannot list input devices: \(error)")
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
            if report.touchscreens.isEmpty { print(Self.whyNone(skipped: report.skipped.count)) }
        }
    }

    /// Why nothing was found, as far as this process can tell: no event nodes at all (a machine
    /// or container without input devices), nodes it may not read (not root, not in `input`),
    /// or nodes that are simply not touchscreens.
    static func whyNone(skipped: Int) -> String {
        guard let stream = opendir("/dev/input") else {
            return "Why: /dev/input does not exist: this machine (or container) has no input devices. Without a "
                + "panel: gestured replay a recording, or gestured run --replay FILE (README, \"Try it\")."
        }
        var nodes: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("event") { nodes.append("/dev/input/" + name) }
        }
        closedir(stream)
        if nodes.isEmpty { return "Why: /dev/input has no event nodes: no input device is plugged in." }
        let unreadable = nodes.filter { access($0, R_OK) != 0 }
        if !unreadable.isEmpty {
            return "Why: \(unreadable.count) of \(nodes.count) event nodes cannot be read by uid \(getuid()): run as "
                + "root, or add the user to the 'input' group (sudo usermod -aG input $USER, then log in again)."
        }
        return "Why: the \(nodes.count) event nodes are not touchscreens"
            + (skipped > 0 ? " (each skipped one says why, above)." : ".")
    }
}
