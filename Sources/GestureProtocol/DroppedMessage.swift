import GestureEngine

/// `dropped`: a configuration reload took some of this connection's definitions, because they
/// no longer fit the new configuration (a region or recognizer they named is gone, a name now
/// clashes, the `clients` policy no longer allows them). Everything else it defined stays.
///
/// ```json
/// {"definitions":[{"kind":"recognizer","name":"keypad-tap","reason":"recognizers[0].region: unknown region 'keypad' (…)"}],"type":"dropped"}
/// ```
/// Sent to that connection only, unasked (it carries no `id`); clients that do not know it
/// ignore it (docs/PROTOCOL.md §3).
public struct DroppedMessage: Hashable, Sendable, Codable, TypedMessage {
    public static let type = "dropped"
    /// Its `type` key (``MessageType``).
    var messageType = MessageType<DroppedMessage>()

    /// One region or recognizer that is gone, and why.
    public struct Definition: Hashable, Sendable, Codable {
        public enum Kind: String, Hashable, Sendable, Codable { case region, recognizer }
        public var kind: Kind
        public var name: String
        /// The validation error against the new configuration, place first
        /// (`recognizers[0].region: unknown region 'keypad'…`).
        public var reason: String

        public init(kind: Kind, name: String, reason: String) {
            self.kind = kind
            self.name = name
            self.reason = reason
        }
    }

    public var definitions: [Definition]

    public init(definitions: [Definition]) {
        self.definitions = definitions
    }

    /// The engine's report of one client's losses.
    public init(_ dropped: DroppedDefinitions) {
        self.init(
            definitions: dropped.dropped.map {
                Definition(kind: $0.kind == .region ? .region : .recognizer, name: $0.name, reason: $0.reason)
            })
    }

    enum CodingKeys: String, CodingKey { case messageType = "type", definitions }
}
