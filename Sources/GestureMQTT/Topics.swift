/// The first levels of every topic `gestured mqtt` publishes and subscribes to
/// (`gestured/kiosk-hall`): a topic name as MQTT 3.1.1 §4.7 allows one to be published to, with no
/// wildcard, no empty level, no `$` first (the broker's own `$SYS`) and nothing a shell or a
/// journal would misread.
public struct TopicPrefix: Hashable, Sendable, CustomStringConvertible {
    public let text: String

    /// The longest prefix: the topics under it stay far below MQTT's 65 535 bytes.
    public static let maximumBytes = 200

    /// Home Assistant's discovery prefix by default.
    public static let homeAssistant = TopicPrefix(checked: "homeassistant")

    private init(checked text: String) { self.text = text }

    /// `text` as a prefix, or why it cannot be one.
    public init(_ text: String) throws(TopicError) {
        try Self.check(text, what: "a topic prefix")
        self.text = text
    }

    /// The default: `gestured/<host>`, with the host's name made a topic level (a character a
    /// topic level may not hold becomes `_`).
    public static func `default`(hostname: String) -> TopicPrefix {
        TopicPrefix(checked: "gestured/" + TopicLevel.sanitized(hostname))
    }

    public var description: String { text }

    /// `prefix/levels`.
    public func appending(_ levels: String) -> String { text + "/" + levels }

    /// Why `text` is not a topic name to publish to, said of `what`.
    static func check(_ text: String, what: String) throws(TopicError) {
        if text.isEmpty { throw TopicError("\(what) cannot be empty") }
        let bytes = text.utf8.count
        if bytes > maximumBytes {
            throw TopicError("\(what) of \(bytes) bytes: at most \(maximumBytes)")
        }
        for wildcard in ["+", "#"] where text.contains(wildcard) {
            throw TopicError(
                "'\(text)': \(what) cannot hold the wildcard '\(wildcard)' (wildcards are for subscribing; "
                    + "MQTT 3.1.1 §4.7.1)")
        }
        if text.hasPrefix("$") {
            throw TopicError("'\(text)': \(what) cannot start with '$' (the broker's own topics, such as $SYS)")
        }
        if text.hasPrefix("/") || text.hasSuffix("/") || text.contains("//") {
            throw TopicError("'\(text)': \(what) cannot have an empty level (a '/' first, last or doubled)")
        }
        if let bad = text.unicodeScalars.first(where: { !TopicLevel.allowed($0) && $0 != "/" }) {
            throw TopicError(
                "'\(TopicLevel.escaped(text))': \(what) holds \(TopicLevel.escaped(String(bad))), which it may not "
                    + "(letters, digits, '-', '_', '.' and '/' between levels)")
        }
    }
}

/// A problem with a topic, said in a sentence.
public struct TopicError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One level or several of a topic, as the mqtt file writes them (an inbound topic's `topic`).
enum TopicLevel {
    /// Letters, digits, `-`, `_`, `.`: what a topic level written in the file may hold.
    static func allowed(_ c: Unicode.Scalar) -> Bool {
        (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "-" || c == "_" || c == "."
    }

    /// `text` with every character a level may not hold as `_` (a host's name, which may be
    /// anything `sethostname` took); empty: `_`.
    static func sanitized(_ text: String) -> String {
        let kept = String(String.UnicodeScalarView(text.unicodeScalars.prefix(64).map { allowed($0) ? $0 : "_" }))
        return kept.isEmpty ? "_" : kept
    }

    /// Control characters escaped, for a message.
    static func escaped(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(80) {
            shown += scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return shown
    }
}

/// The topics under a prefix (docs/FLEET.md, "Topics and payloads").
public struct Topics: Hashable, Sendable {
    public let prefix: TopicPrefix

    public init(prefix: TopicPrefix) { self.prefix = prefix }

    /// `online` while this client is connected to the broker and to the daemon, `offline`
    /// otherwise (the last will, retained).
    public var availability: String { prefix.appending("availability") }
    /// Each chosen gesture report, as the daemon's socket sends it.
    public var gesture: String { prefix.appending("gesture") }
    /// `idle`, `active` and `wake` messages, as the socket sends them.
    public var panel: String { prefix.appending("panel") }
    /// `ON` while the panels are in use, `OFF` once idle (retained).
    public var active: String { prefix.appending("active") }
    /// `contact` messages, as the socket sends them.
    public var contact: String { prefix.appending("contact") }
    /// Where the inbound topics are: `<prefix>/command/<topic>`.
    public func command(_ topic: String) -> String { prefix.appending("command/" + topic) }

    /// Availability's payloads (Home Assistant's defaults).
    public static let online = "online"
    public static let offline = "offline"
    /// The active state's payloads (a binary sensor's defaults).
    public static let on = "ON"
    public static let off = "OFF"
}

/// Text from the broker, made safe for a journal line.
public enum MQTTText {
    /// At most 80 characters, control characters escaped, then how long it was.
    public static func loggable(_ text: String) -> String {
        let shown = TopicLevel.escaped(text)
        return text.unicodeScalars.count > 80 ? "\(shown)… (\(text.utf8.count) bytes)" : shown
    }
}
