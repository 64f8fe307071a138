import GestureEngine
import GestureProtocol

// Strict Codable for the actions file, as for the daemon's: unknown keys are errors, every value
// is checked where it is read, so the loader can point at its line and column.

extension ActionsConfiguration: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case socket
        case daemonUser = "daemon-user"
        case commands, actions
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "the actions file")
        socket = try c.decodeClientSocket(forKey: .socket)
        daemonUser = try c.decodeDaemonUser(forKey: .daemonUser)
        commands = try c.decode(.commands, default: commands)
        guard c.contains(.actions), try !c.decodeNil(forKey: .actions) else {
            throw decoder.missing(
                CodingKeys.actions,
                "the actions file needs 'actions': a list of rules such as "
                    + "{on: swipe, direction: down, keys: [KEY_LEFTCTRL, KEY_R]}")
        }
        actions = try c.decode(.actions, default: [], expect: "a list of at most 256 rules") { $0.count <= 256 }
    }
}

extension KeyedDecodingContainer {
    /// A client program's `socket`: an absolute path a client can connect to (``SocketPath``'s
    /// limits), as `gestured actions` and `gestured mqtt` take it.
    public func decodeClientSocket(forKey key: Key) throws -> String? {
        guard let socket = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard socket.hasPrefix("/") else {
            throw corrupted(key, "expected an absolute path")
        }
        do {
            _ = try SocketPath(socket, for: .connect)
        } catch {
            throw corrupted(key, error.description)
        }
        return socket
    }

    /// A client program's `daemon-user`: the user the daemon must run as (``DaemonTrust``).
    public func decodeDaemonUser(forKey key: Key) throws -> String? {
        let user = try decodeIfPresent(String.self, forKey: key)
        if let user, !ActionsConfiguration.isUserName(user) {
            throw corrupted(key, "expected a user name (letters, digits, '_', '-', '.', at most 32) or a uid")
        }
        return user
    }
}

extension ActionsConfiguration {
    /// A user name as useradd(8) and systemd take them (a number: a uid).
    public static func isUserName(_ name: String) -> Bool {
        (1...32).contains(name.utf8.count) && name.first != "-"
            && name.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
                    || c == 0x2D || c == 0x2E
            }
    }
}

extension CommandSettings: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case timeoutMS = "timeout-ms"
        case maxRunning = "max-running"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'commands'")
        timeoutMS = try c.decode(
            .timeoutMS, default: timeoutMS, within: 100...86_400_000, expect: "milliseconds from 100 to 86400000")
        maxRunning = try c.decode(.maxRunning, default: maxRunning, within: 1...64, expect: "a number from 1 to 64")
    }
}

extension ActionRule: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case on, state, direction, edge, fingers, region, name
        case keys, `repeat`, click, scroll, run, shell
    }

    static let actionKeys: [CodingKeys] = [.keys, .click, .scroll, .run, .shell]

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "a rule")
        guard c.contains(.on) else {
            throw decoder.missing(
                CodingKeys.on, "a rule needs 'on': the name of the recognizer it acts on, or wake, idle, active or mqtt"
            )
        }
        recognizer = try c.decode(
            .on, default: "", expect: "a recognizer name (1 to 64 letters, digits, '-', '_' or '.')"
        ) {
            RegionSpec.isValidName($0)
        }
        state = try c.decodeIfPresent(GestureState.self, forKey: .state)
        direction = try c.decodeIfPresent(Direction.self, forKey: .direction)
        edge = try c.decodeIfPresent(Edge.self, forKey: .edge)
        fingers = try c.decodeIfPresent(Int.self, forKey: .fingers)
        if let fingers, !(1...10).contains(fingers) {
            throw c.corrupted(.fingers, "expected 1 to 10 fingers")
        }
        region = try c.decodeIfPresent(String.self, forKey: .region)
        if let region, !RegionSpec.isValidName(region) {
            throw c.corrupted(.region, "expected a region name (1 to 64 letters, digits, '-', '_' or '.')")
        }
        name = try c.decodeIfPresent(String.self, forKey: .name)
        if let name, !RegionSpec.isValidName(name) {
            throw c.corrupted(.name, "expected a rule name (1 to 64 letters, digits, '-', '_' or '.')")
        }
        if recognizer == Self.namedOnly && name == nil {
            throw decoder.missing(
                CodingKeys.name, "a rule 'on: mqtt' needs 'name': what gestured mqtt's inbound topics call it")
        }

        let given = Self.actionKeys.filter { c.contains($0) }
        guard given.count == 1, let key = given.first else {
            let keys = Self.actionKeys.map(\.rawValue).joined(separator: ", ")
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath + (given.dropFirst().first.map { [$0] } ?? []),
                    debugDescription: given.isEmpty
                        ? "a rule needs one action: one of \(keys)"
                        : "a rule has one action; '\(given[1].rawValue)' is a second one, beside '\(given[0].rawValue)'"
                ))
        }
        if PanelEventName(rawValue: recognizer) != nil || recognizer == Self.namedOnly {
            try Self.checkPanelRule(c, key)
        }
        if c.contains(.repeat) && key != .keys {
            throw c.corrupted(.repeat, "'repeat' goes with 'keys' (it repeats them)")
        }
        switch key {
        case .keys:
            let chord = try Self.chord(c, .keys)
            action = .keys(chord, repeating: try c.decodeIfPresent(KeyRepeat.self, forKey: .repeat))
        case .click:
            action = .click(try c.decode(Click.self, forKey: .click))
        case .scroll:
            action = .scroll(try c.decode(Scroll.self, forKey: .scroll))
        case .run:
            if let line = try? c.decode(String.self, forKey: .run) {
                throw c.corrupted(.run, Command.listAdvice(line))
            }
            let arguments = try c.decode(
                .run, default: [String](),
                expect:
                    "a program and its arguments, such as [\"/usr/bin/systemctl\", \"--user\", \"restart\", \"kiosk\"]"
            ) {
                !$0.isEmpty && !$0[0].isEmpty && $0.count <= 256
            }
            for (j, argument) in arguments.enumerated() {
                if let problem = Command.problem(argument) {
                    throw DecodingError.dataCorrupted(
                        DecodingError.Context(
                            codingPath: decoder.codingPath + [CodingKeys.run, AnyCodingKey(intValue: j)!],
                            debugDescription: problem))
                }
            }
            let total = arguments.reduce(8) { $0 + $1.utf8.count + 1 + 8 }
            if total > Command.maximumArgumentsBytes {
                throw c.corrupted(
                    .run,
                    "the arguments take \(total) bytes to pass (each with its NUL and "
                        + "pointer): at most \(Command.maximumArgumentsBytes), so that they and the environment "
                        + "fit the kernel's limit")
            }
            action = .run(Command(arguments))
        case .shell:
            let line = try c.decode(.shell, default: "", expect: "a command line for /bin/sh -c") { !$0.isEmpty }
            if let problem = Command.problem(line) {
                throw c.corrupted(.shell, problem)
            }
            action = .run(Command(shell: line))
        default:
            preconditionFailure("not an action key: \(key)")
        }
        if let state, followsGesture {
            throw c.corrupted(
                .state,
                "'state: \(state.rawValue)' does not go with "
                    + (c.contains(.scroll) ? "'scroll'" : "'repeat'")
                    + ": it follows the gesture from began to its end")
        }
    }

    /// A rule on a panel's day (`on: wake`, `idle`, `active`) or named by `gestured mqtt` (`on:
    /// mqtt`) has no gesture: no filter of one, and no action that needs its position or motion.
    static func checkPanelRule(_ c: KeyedDecodingContainer<CodingKeys>, _ action: CodingKeys) throws {
        let on = (try? c.decode(String.self, forKey: .on)) ?? ""
        let actsOn =
            on == namedOnly ? "acts when gestured mqtt names the rule" : "acts on the panel's \(on) message"
        for filter in [CodingKeys.state, .direction, .edge, .fingers, .region, .repeat] where c.contains(filter) {
            throw c.corrupted(filter, "'\(filter.rawValue)' is a gesture's; 'on: \(on)' \(actsOn)")
        }
        guard action == .keys || action == .run || action == .shell else {
            throw c.corrupted(action, "'on: \(on)' takes keys, run or shell: '\(action.rawValue)' needs a gesture")
        }
    }

    /// A list of 1 to 8 distinct key names; whether each is a Linux key name is checked by the
    /// loader (the names are libevdev's).
    static func chord<Key: CodingKey>(_ c: KeyedDecodingContainer<Key>, _ key: Key) throws -> KeyChord {
        let names = try c.decode(
            key, default: [String](), expect: "a list of 1 to 8 different key names, such as [KEY_LEFTCTRL, KEY_R]"
        ) {
            (1...8).contains($0.count) && Set($0).count == $0.count
        }
        return KeyChord(names)
    }
}

extension KeyRepeat: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case everyMM = "every-mm"
        case along
        case everyDegrees = "every-degrees"
        case everyScale = "every-scale"
        case reverse
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'repeat'")
        let units: [CodingKeys] = [.everyMM, .everyDegrees, .everyScale]
        let given = units.filter { c.contains($0) }
        guard given.count == 1 else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath + (given.dropFirst().first.map { [$0] } ?? []),
                    debugDescription: "'repeat' needs one step: every-mm (with along), every-degrees or every-scale"))
        }
        if c.contains(.along) && given[0] != .everyMM {
            throw c.corrupted(.along, "'along' goes with 'every-mm'")
        }
        switch given[0] {
        case .everyMM:
            let mm = try c.decode(.everyMM, default: 0.0, within: 1...1000, expect: "millimetres from 1 to 1000")
            guard c.contains(.along) else {
                throw decoder.missing(
                    CodingKeys.along,
                    "'every-mm' needs 'along': the direction of a step forward (up, down, left or right)")
            }
            let along = try c.decode(.along, default: Direction.up, expect: "up, down, left or right") {
                [.up, .down, .left, .right].contains($0)
            }
            step = .millimetres(mm, along: along)
        case .everyDegrees:
            step = .degrees(
                try c.decode(.everyDegrees, default: 0.0, within: 1...360, expect: "degrees from 1 to 360"))
        default:
            step = .scale(
                try c.decode(.everyScale, default: 0.0, within: 1.01...10, expect: "a factor from 1.01 to 10")
            )
        }
        reverse = c.contains(.reverse) ? try ActionRule.chord(c, .reverse) : nil
    }
}

extension Click: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case button, at }

    /// `click: right`, or `click: {button: right, at: cursor}`.
    public init(from decoder: any Decoder) throws {
        if (try? decoder.singleValueContainer().decode(String.self)) != nil {
            self.init(try PointerButton(from: decoder))
            return
        }
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'click'")
        guard c.contains(.button) else {
            throw decoder.missing(CodingKeys.button, "'click' needs 'button': left, right or middle")
        }
        self.init(try c.decode(PointerButton.self, forKey: .button), at: try c.decode(.at, default: .gesture))
    }
}

extension Scroll: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case natural
        case mmPerDetent = "mm-per-detent"
        case axis, at
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'scroll'")
        natural = try c.decode(.natural, default: natural)
        mmPerDetent = try c.decode(
            .mmPerDetent, default: mmPerDetent, within: 0.5...500, expect: "millimetres from 0.5 to 500")
        axis = try c.decode(.axis, default: axis)
        at = try c.decode(.at, default: at)
    }
}

extension Command {
    /// What to write instead of `run: "a command line"`: `run` is an argument list that no shell
    /// reads, so a line given as one string would be one program's name. The line split at its
    /// spaces when it holds nothing a shell would interpret, and always `[sh, -c, "…"]`.
    static func listAdvice(_ line: String) -> String {
        var advice =
            "'run' takes a list, the program and its arguments, not a command line: there is no shell to split it. "
        let shellSyntax = "|&;<>()$`\\\"'*?[]{}#~"
        let words = line.split(separator: " ").map(String.init)
        if !words.isEmpty && !line.contains(where: { shellSyntax.contains($0) || $0 == "\t" || $0 == "\n" }) {
            advice += "Write run: [\(words.map(flowItem).joined(separator: ", "))], or for a shell, "
        } else {
            advice += "For a shell's pipes, quotes or variables write "
        }
        return advice + "run: [sh, -c, \(flowItem(line))] (or shell: \(flowItem(line)))"
    }

    /// An item of a YAML flow list: plain when YAML reads it back as the same string, else double-quoted.
    private static func flowItem(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "/._+-=".unicodeScalars.contains($0)
        }
        let special = ["true", "false", "null", "yes", "no", "on", "off", "~"]
        if plain && !text.isEmpty && !special.contains(text.lowercased()) && Double(text) == nil {
            return text
        }
        let escaped = text.map { $0 == "\\" || $0 == "\"" ? "\\\($0)" : String($0) }.joined()
        return "\"\(escaped)\""
    }
}
