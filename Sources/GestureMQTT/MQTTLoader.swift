import GestureActions
import GestureEngine
import YAMLCoding

/// An mqtt file as loaded: the configuration, the files read, and the actions file its inbound
/// topics name rules of (read and checked with it).
public struct LoadedMQTT: Hashable, Sendable {
    public var configuration: MQTTConfiguration
    public var file: String
    /// `file`, then its drop-ins in the order they were merged.
    public var files: [String]
    /// The actions file of `inbound.actions-file`; nil without `inbound`.
    public var actions: LoadedActions?

    public init(configuration: MQTTConfiguration, file: String, files: [String]? = nil, actions: LoadedActions? = nil) {
        self.configuration = configuration
        self.file = file
        self.files = files ?? [file]
        self.actions = actions
    }
}

/// Reads an mqtt file (libyaml, through YAMLCoding) with the same strict decoding, drop-ins and
/// error positions as the daemon's configuration and the actions file.
public enum MQTTLoader {
    /// The most bytes an mqtt file may have: a real one has a few hundred.
    public static let maximumFileSize = 256 * 1024

    private static let kind = "an mqtt file"
    private static let expecting = "expected a mapping with 'broker' at the top level"

    /// The mqtt file at `path` and its drop-ins (`PATH.d/*.yaml`), merged, not yet decoded. Every
    /// mapping merges key by key; a list (`publish.gestures`, `inbound.topics`) is replaced whole.
    public static func read(_ path: String) throws(YAMLFileError) -> YAMLFileSet {
        try YAMLFileSet.read(path, limit: maximumFileSize, kind: kind, expecting: expecting, lists: [])
    }

    /// Whether a top-level YAML mapping is an mqtt file (it has `broker`, which neither a daemon
    /// configuration nor an actions file has): how `check-config` tells the files apart.
    public static func isMQTTFile(_ text: String) -> Bool {
        guard let root = try? YAMLNode.parse(text), let pairs = root.mapping else { return false }
        return pairs.contains { $0.key.scalar?.text == MQTTConfiguration.CodingKeys.broker.rawValue }
    }

    /// Decodes and checks the text of an mqtt file; `file` names it in errors. `actions` reads
    /// the actions file an `inbound` section names (``ActionsLoader``, with libevdev's key names at
    /// the edge).
    public static func parse(
        _ bytes: [UInt8], file: String, actions: (String) throws(YAMLFileError) -> LoadedActions
    ) throws(YAMLFileError) -> LoadedMQTT {
        try YAMLFile.checkSize(bytes.count, limit: maximumFileSize, kind: kind, file: file)
        let document = try YAMLFile.mapping(bytes, file: file, expecting: expecting)
        return try parse(YAMLFileSet(root: document, file: file, dropIns: []), actions: actions)
    }

    /// Decodes and checks an mqtt file with its drop-ins, read by ``read(_:)``: every inbound
    /// topic's rule must be a rule of the actions file, and one that acts without a gesture.
    public static func parse(
        _ set: YAMLFileSet, actions: (String) throws(YAMLFileError) -> LoadedActions
    ) throws(YAMLFileError) -> LoadedMQTT {
        let file = set.file
        guard let root = set.root else {
            throw YAMLFileError(file: file, at: YAMLMark(line: 1, column: 1), "the file is empty: it needs 'broker'")
        }
        let configuration = try YAMLFile.decode(MQTTConfiguration.self, from: root, file: file)
        var loaded = LoadedMQTT(configuration: configuration, file: file, files: set.files)
        guard let inbound = configuration.inbound else { return loaded }
        let rules = try actions(inbound.actionsFile)
        let actionsConfiguration = rules.configuration
        let named = actionsConfiguration.actions.compactMap(\.name)
        for (i, entry) in inbound.topics.enumerated() {
            let path: [any CodingKey] = [
                AnyCodingKey(stringValue: "inbound"), AnyCodingKey(stringValue: "topics"), AnyCodingKey(intValue: i)!,
                AnyCodingKey(stringValue: "rule"),
            ]
            let mark = root.resolve(path).node.mark
            guard let rule = actionsConfiguration.rule(named: entry.rule) else {
                throw YAMLFileError(
                    file: file, at: mark,
                    "no rule named '\(entry.rule)' in \(rules.file) (its named rules: "
                        + (named.isEmpty ? "none; a rule gets one with 'name'" : named.sorted().joined(separator: ", "))
                        + ")")
            }
            guard rule.actsWithoutGesture else {
                throw YAMLFileError(
                    file: file, at: mark,
                    "the rule '\(entry.rule)' (\(rules.ruleLocations[actionsConfiguration.actions.firstIndex(of: rule)!]))"
                        + " clicks, scrolls or repeats at a gesture, and a message has none: a rule an inbound "
                        + "topic runs takes keys, run or shell")
            }
        }
        loaded.actions = rules
        return loaded
    }
}
