import ArgumentParser
import FoundationEssentials
import GestureActions
import GestureClient
import GestureProtocol
import Glibc

/// `gestured actions --dry-run`: every gesture through the same ``ActionPlanner`` the running
/// client uses, printed with the rule that matched and what it would have sent, instead of being
/// carried out: no uinput device is made and no command is started.
struct ActionsDryRun {
    let loaded: LoadedActions
    private var planner: ActionPlanner
    private var outputs: [ActionPlanner.Output] = []
    private var rules: [Int] = []

    init(_ loaded: LoadedActions) {
        self.loaded = loaded
        planner = ActionPlanner(loaded.configuration)
    }

    /// The lines for one message: a gesture report or a panel's day, nothing for the others. A
    /// continuous gesture's reports that do nothing (`changed` between scroll steps) print nothing.
    mutating func lines(for message: ServerMessage) -> [String] {
        outputs.removeAll(keepingCapacity: true)
        rules.removeAll(keepingCapacity: true)
        let head: String
        var quiet = false
        switch message {
        case .gesture(let g):
            let followed = planner.followingCount
            planner.handle(g, into: &outputs, rules: &rules)
            head =
                "\(MessagePrinter.seconds(g.time.microseconds))  \(g.name) \(g.state.rawValue)"
                + "  \(g.fingers) finger\(g.fingers == 1 ? "" : "s")"
                + (g.direction.map { " \($0.rawValue)" } ?? "") + (g.edge.map { " edge \($0.rawValue)" } ?? "")
            quiet = !(g.state == .recognized || g.state == .began)
            if outputs.isEmpty {
                guard !quiet else { return [] }
                if planner.followingCount > followed {
                    return [
                        head
                            + "  → a rule on '\(g.name)' follows it (nothing to send yet: it sends as the gesture moves)"
                    ]
                }
                let named = loaded.configuration.recognizerNames.contains(g.name)
                return [
                    head
                        + (named
                            ? "  → no rule: the filters of the rules on '\(g.name)' do not match"
                            : "  → no rule on '\(g.name)'")
                ]
            }
        case .wake, .idle, .active:
            planner.handle(panel: message, into: &outputs, rules: &rules)
            guard !outputs.isEmpty else { return [] }
            head = "panel \(message.type)"
        default:
            return []
        }
        return zip(outputs, rules).map { output, rule in
            "\(head)  → rule \(rule + 1) (\(loaded.ruleLocations[rule])): \(Self.describe(output))"
        }
    }

    /// What an output would have sent.
    static func describe(_ output: ActionPlanner.Output) -> String {
        func place(_ at: PointerPlace, _ p: XY) -> String {
            at == .cursor ? "at the cursor" : "at (\(MessagePrinter.fixed(p.x)), \(MessagePrinter.fixed(p.y)))"
        }
        switch output {
        case .keys(let keys): return "keys " + keys.joined(separator: " + ")
        case .click(let button, let at, let position): return "click \(button.rawValue) \(place(at, position))"
        case .wheel(let motion, let at, let position):
            return "wheel vertical \(motion.vertical)/120 (\(motion.verticalDetents) detents), horizontal "
                + "\(motion.horizontal)/120 (\(motion.horizontalDetents) detents) \(place(at, position))"
        case .run(let command, _, _): return "run \(command.label) (not started)"
        case .refuse(let command, let refusal, _): return "would refuse to run \(command.label): \(refusal)"
        }
    }

    /// Reads messages as JSON lines (`gestured replay` or `listen` output) from `path` (`-`:
    /// standard input) and prints each one's lines.
    mutating func run(lines path: String) throws {
        let fd = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            printError("gestured actions: cannot read \(path): \(String(cString: strerror(errno)))")
            throw ExitCode.failure
        }
        defer { if fd != 0 { close(fd) } }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else {
                printError("gestured actions: cannot read \(path): \(String(cString: strerror(errno)))")
                throw ExitCode.failure
            }
            if n == 0 { break }
            data.append(contentsOf: buffer[..<n])
        }
        let decoder = JSONDecoder()
        for (index, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() {
            let message: ServerMessage
            do {
                message = try decoder.decode(ServerMessage.self, from: Data(line))
            } catch {
                printError(
                    "gestured actions: \(path):\(index + 1): not a message of the protocol (JSON lines as `gestured replay` prints): \(error)"
                )
                throw ExitCode.failure
            }
            for text in lines(for: message) { say(text) }
        }
    }

    /// Connects to the daemon at `socket`, subscribes to every gesture, and prints each one's
    /// lines until the daemon ends the connection (or the user, with Ctrl-C).
    mutating func run(socket: String) async throws {
        var dryRun = self
        do {
            let ending = try await GestureClient.connect(to: socket) { client async throws -> ErrorMessage? in
                try await client.subscribe(Subscription())
                say("dry run: connected to \(socket); gestures and what they would do (nothing is sent or run):")
                for try await message in client.messages {
                    if case .error(let error) = message, error.code.closesConnection { return error }
                    for text in dryRun.lines(for: message) { say(text) }
                }
                return nil
            }
            if let ending { printError("gestured actions: the daemon closed the connection: \(ending)") }
        } catch let error as GestureClientError {
            printError("gestured actions: \(error) (is gestured running? --socket chooses another path)")
            throw ExitCode.failure
        }
        self = dryRun
    }
}
