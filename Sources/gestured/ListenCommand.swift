import ArgumentParser
import GestureClient
import GestureEngine
import GestureProtocol

#if canImport(Glibc)
import Glibc
#endif

/// `gestured listen`: a client that prints what the daemon sends.
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Print the gestures (and optionally raw touches) the daemon publishes.",
        discussion: """
            Prints one JSON object per line (the protocol's own messages, `hello` first), or \
            readable lines with --pretty. Filters may be repeated; absent filters let everything \
            through. Exits non-zero when the socket cannot be reached or the server ends the \
            connection with an error.

            Examples:
              gestured listen --pretty
              gestured listen --kind swipe --kind tap | jq -c '{name, direction}'
              gestured listen --socket /tmp/g.sock --touches --region keypad
              gestured listen --gesture admin-menu --state recognized --state began
              gestured listen --pretty --explain --gesture next-page
            """
    )

    @Option(name: .long, help: "The daemon's socket.")
    var socket = GestureProtocol.defaultSocketPath

    @Option(name: .customLong("gesture"), help: "Only this recognizer (by name).")
    var gestures: [String] = []

    @Option(
        name: .customLong("kind"),
        help: "Only this kind (\(GestureKind.allCases.map(\.rawValue).joined(separator: ", "))).")
    var kinds: [String] = []

    @Option(
        name: .customLong("state"),
        help: "Only this state (\(GestureState.allCases.map(\.rawValue).joined(separator: ", "))).")
    var states: [String] = []

    @Option(name: .customLong("region"), help: "Only this region.")
    var regions: [String] = []

    @Option(name: .customLong("device"), help: "Only this device label (e.g. event5).")
    var devices: [String] = []

    @Flag(help: "Also print raw touches, as the application under the recognizers gets them (\(Installed.guide("ARBITRATION")), R8).")
    var touches = false

    @Flag(help: "Also print why recognizers failed, waited, or were blocked or cancelled (`explain`).")
    var explain = false

    @Flag(help: "Readable lines instead of JSON.")
    var pretty = false

    func validate() throws {
        try validateSocketOption(socket)
        _ = try subscription()
    }

    func subscription() throws -> Subscription {
        func parse<T: RawRepresentable & CaseIterable>(_ spellings: [String], _ what: String) throws -> Set<T>?
        where T.RawValue == String {
            guard !spellings.isEmpty else { return nil }
            return Set(
                try spellings.map { spelling in
                    guard let value = T(rawValue: spelling) else {
                        let known = T.allCases.map(\.rawValue).joined(separator: ", ")
                        throw ValidationError(
                            "unknown \(what) '\(spelling)'"
                                + NearestWord.hint(for: spelling, among: T.allCases.map(\.rawValue))
                                + " (expected one of: \(known))")
                    }
                    return value
                })
        }
        return Subscription(
            gestures: gestures.isEmpty ? nil : Set(gestures), kinds: try parse(kinds, "kind"),
            states: try parse(states, "state"), regions: regions.isEmpty ? nil : Set(regions),
            devices: devices.isEmpty ? nil : Set(devices), touches: touches, explain: explain)
    }

    func run() async throws {
        let subscription = try subscription()
        var printer = MessagePrinter(pretty: pretty)
        let ending: ErrorMessage?
        do {
            ending = try await GestureClient.connect(to: socket) { client in
                try await client.subscribe(subscription)
                // After the subscription is in place, so whoever reads our output knows that
                // everything published from now on will show.
                printer.print(.hello(client.hello), socket: socket)
                for warning in Self.unknownNames(client.hello, gestures: gestures, regions: regions) {
                    writeAll(2, "gestured listen: \(warning)\n")
                }
                for try await message in client.messages {
                    printer.print(message, socket: socket)
                    if case .error(let error) = message, error.code.closesConnection { return error }
                }
                return nil
            }
        } catch let error as GestureClientError {
            writeAll(2, "gestured listen: \(error.advised)\n")
            throw ExitCode.failure
        }
        if let ending {
            writeAll(2, "gestured listen: the server closed the connection: \(ending)\n")
            throw ExitCode.failure
        }
    }
}

extension ListenCommand {
    /// A `--gesture` or `--region` filter the daemon's `hello` does not know would print nothing,
    /// silently, for ever: each is named (with the nearest known name), and listening goes on,
    /// since a client may define it later.
    static func unknownNames(_ hello: HelloMessage, gestures: [String], regions: [String]) -> [String] {
        let names = hello.recognizers.map(\.name).sorted()
        let known = Set(names)
        let places = Set(hello.recognizers.map(\.region) + [RegionSpec.rootName]).sorted()
        let knownPlaces = Set(places)
        return gestures.filter { !known.contains($0) }.map { name in
            "the daemon runs no recognizer '\(name)'\(NearestWord.hint(for: name, among: names)) "
                + "(it runs: \(names.joined(separator: ", "))); listening anyway, for one a client defines later"
        }
            + regions.filter { !knownPlaces.contains($0) }.map { region in
                "no recognizer of the daemon is in region '\(region)'\(NearestWord.hint(for: region, among: places)) "
                    + "(regions with recognizers: \(places.joined(separator: ", "))); listening anyway"
            }
    }
}

/// Turns messages into output lines.
struct MessagePrinter {
    let pretty: Bool
    /// The server's own encoder, so a line prints exactly as the daemon sent it.
    private var encoder = LineEncoder()
    /// The latest time a message carried, to tell a gesture reported after later ones.
    private var latest = Int64.min

    init(pretty: Bool) { self.pretty = pretty }

    mutating func print(_ message: ServerMessage, socket: String) {
        guard pretty else {
            if let line = try? encoder.encode(message) {
                line.withUnsafeBytes { writeAll(1, $0) }
            }
            return
        }
        writeAll(1, line(message, socket: socket) + "\n")
    }

    /// ``describe(_:socket:)``, and for a gesture that comes after messages of a later time, why:
    /// it was held for another recognizer to fail (R4) and keeps the time it happened.
    mutating func line(_ message: ServerMessage, socket: String) -> String {
        let text = Self.describe(message, socket: socket)
        let time: Int64? =
            switch message {
            case .gesture(let g): g.time.microseconds
            case .touch(let t): t.time.microseconds
            case .explain(let e): e.timeUS
            default: nil
            }
        guard let time else { return text }
        defer { latest = max(latest, time) }
        guard case .gesture = message, time < latest else { return text }
        return text + "  (held \((latest - time) / 1000) ms or more: it waited for another recognizer to fail, "
            + "R4; --explain says which)"
    }

    static func describe(_ message: ServerMessage, socket: String) -> String {
        func at(_ p: SurfacePoint) -> String { "(\(fixed(p.x)), \(fixed(p.y)))" }
        switch message {
        case .hello(let h):
            var text =
                "connected to \(socket): gestured \(h.daemonVersion), protocol \(h.protocolVersion), client \(h.client)"
            for device in h.devices { text += "\n  " + describe(device) }
            text += "\n  \(h.recognizers.count) recognizers: "
            text += h.recognizers.map { "\($0.name) (\($0.kind.rawValue))" }.joined(separator: ", ")
            return text
        case .gesture(let g):
            var text = "\(seconds(g.time.microseconds))  \(g.name) [\(g.kind.rawValue)] \(g.state.rawValue)"
            text += "  \(g.fingers) finger\(g.fingers == 1 ? "" : "s") at \(at(g.position))"
            if let d = g.direction { text += "  direction \(d.rawValue)" }
            if let e = g.edge { text += "  edge \(e.rawValue)" }
            if let s = g.shape { text += "  shape \(s)" + (g.score.map { " score \(fixed($0))" } ?? "") }
            if let s = g.scale { text += "  scale \(fixed(s))" }
            if let r = g.rotation { text += "  rotation \(fixed(r)) rad" }
            return text + "  \(g.device)/\(g.region)  #\(g.seq)"
        case .touch(let t):
            return
                "\(seconds(t.time.microseconds))  touch \(t.id.rawValue) \(t.phase) \(t.tool.rawValue) at \(at(t.position))"
                + "  \(t.device)/\(t.region)  #\(t.seq)"
        case .device(let d):
            return "device \(d.event.rawValue): " + describe(d.device)
        case .error(let e):
            return "error \(e.code): \(e.message)"
        case .explain(let e):
            return "\(seconds(e.timeUS))  \(e.text)  \(e.device)/\(e.region)"
        case .dropped(let d):
            return d.definitions.map { "dropped \($0.kind.rawValue) \($0.name): \($0.reason)" }.joined(separator: "\n")
        case .wake(let w):
            return "\(seconds(w.time.microseconds))  wake (\(w.cause.rawValue)): touch \(w.touch.rawValue) at \(at(w.position))"
                + " woke the screen and reaches nobody  \(w.device)"
        case .idle(let i):
            return "\(seconds(i.time.microseconds))  idle: no touch for \(i.afterMS) ms  \(i.device)"
        case .active(let a):
            return "\(seconds(a.time.microseconds))  active: touch \(a.touch.rawValue)  \(a.device)"
        case .contact(let c):
            return "\(seconds(c.time.microseconds))  \(c.text)  \(c.device)"
        case .recording(let r):
            return "recording \(r.event.rawValue): \(r.device)" + (r.events.map { ", \($0) events" } ?? "")
                + (r.reason.map { " (\($0.rawValue))" } ?? "")
        case .raw(let r):
            return "raw \(r.device): \(r.events.count) events"
        case .ok, .pong:
            return message.type
        case .status(let status):
            return StatusText.render(status)
        }
    }

    static func describe(_ d: DeviceInfo) -> String {
        var text = "\(printable(d.label)) \"\(printable(d.name))\""
        if let v = d.vendor, let p = d.product { text += " \(hex(v)):\(hex(p))" }
        text += d.sizeMM.map { " \(fixed($0.width))×\(fixed($0.height)) mm" } ?? " (size unknown)"
        return text + ", \(d.slots) slots"
    }

    static func hex(_ n: Int) -> String {
        let digits = String(n, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Three decimals without Foundation's formatters.
    static func fixed(_ x: Double) -> String {
        guard x.isFinite else { return "\(x)" }
        let thousandths = Int((abs(x) * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return (x < 0 && thousandths != 0 ? "-" : "") + "\(thousandths / 1000)."
            + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// Kernel time as seconds with microseconds, like the kernel log.
    static func seconds(_ us: Int64) -> String {
        let fraction = String(us % 1_000_000)
        let whole = String(us / 1_000_000)
        return String(repeating: " ", count: max(0, 6 - whole.count)) + whole + "."
            + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}

/// Refuses `--socket` before a command runs when it is no path a client can connect to (nil:
/// the command's default).
func validateSocketOption(_ socket: String?) throws {
    guard let socket else { return }
    do {
        _ = try SocketPath(socket, for: .connect)
    } catch {
        throw ValidationError("--socket: \(error)")
    }
}

extension GestureClientError {
    /// The error, and what to check when nothing answers at the socket.
    var advised: String {
        guard case .cannotConnect = self else { return description }
        return "\(description) (is gestured running? --socket chooses another path)"
    }
}
