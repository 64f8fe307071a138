import GestureEngine
import GestureProtocol

/// What an actions file asks of the daemon it connects to, checked against the daemon's `hello`:
/// a rule on a recognizer the daemon does not run can never act (a typo, or a recognizer renamed
/// in the daemon's configuration), and scrolling or repeated keys need a continuous gesture.
/// These are warnings, not errors: the daemon's configuration may change while the actions file
/// stays, and a client may define the recognizer later.
public enum ActionsCheck {
    /// One sentence per problem, each starting with the rule's `FILE:LINE:COLUMN`. `source` says
    /// where the recognizers are from: the running daemon, or (for `check-config`) a configuration
    /// file or the built-in set.
    public static func warnings(
        _ loaded: LoadedActions, against recognizers: [RecognizerSummary], source: String = "runs in the daemon"
    ) -> [String] {
        var kinds: [String: GestureKind] = [:]
        for r in recognizers { kinds[r.name] = r.kind }
        let running = recognizers.map(\.name).sorted().joined(separator: ", ")
        var warnings: [String] = []
        for (i, rule) in loaded.configuration.actions.enumerated() {
            let at = loaded.ruleLocations[i]
            if rule.isNamedOnly {
                if kinds[ActionRule.namedOnly] != nil {
                    warnings.append(
                        "\(at): 'on: mqtt' acts when gestured mqtt names the rule, not on the daemon's recognizer "
                            + "'mqtt', which no rule can name: rename the recognizer")
                }
                continue
            }
            if let event = rule.panelEvent {
                if kinds[event.rawValue] != nil {
                    warnings.append(
                        "\(at): 'on: \(event.rawValue)' acts on the panel's \(event.rawValue) message, not on the daemon's "
                            + "recognizer '\(event.rawValue)', which no rule can name: rename the recognizer")
                }
                continue
            }
            guard let kind = kinds[rule.recognizer] else {
                warnings.append(
                    "\(at): no recognizer '\(rule.recognizer)' \(source), so this rule never acts"
                        + NearestWord.hint(for: rule.recognizer, among: recognizers.map(\.name).sorted())
                        + " (there: \(running.isEmpty ? "none" : running); a client may define it later)")
                continue
            }
            if rule.followsGesture && !kind.isContinuous {
                warnings.append(
                    "\(at): '\(rule.recognizer)' is a \(kind.rawValue), which is discrete: it has no motion to "
                        + "\(rule.action.isScroll ? "scroll with" : "repeat keys over"); use a continuous kind "
                        + "(pan, pinch, rotate, long-press, edge-swipe)")
            } else if let state = rule.state, kind.isContinuous == (state == .recognized) {
                warnings.append(
                    "\(at): '\(rule.recognizer)' (\(kind.rawValue)) never reports '\(state.rawValue)'"
                        + (kind.isContinuous
                            ? " (it reports began, changed, ended, cancelled)" : " (it reports recognized)"))
            }
        }
        return warnings
    }
}

extension Action {
    var isScroll: Bool {
        if case .scroll = self { true } else { false }
    }
}

/// The pause before each attempt to reach the daemon again: 100 ms, doubling up to 5 s, and
/// back to the start once a connection has said `hello`. A restarted daemon (or one started by
/// socket activation) is reached within 100 ms to 5 s without a busy loop while it is away.
public struct ReconnectBackoff: Sendable {
    public static let first = Duration.milliseconds(100)
    public static let longest = Duration.seconds(5)
    private var next = ReconnectBackoff.first

    public init() {}

    /// The pause before the next attempt; the one after it is twice as long, up to ``longest``.
    public mutating func pause() -> Duration {
        defer { next = min(next * 2, Self.longest) }
        return next
    }

    /// A connection succeeded: the next outage starts with the shortest pause again.
    public mutating func connected() {
        next = Self.first
    }
}
