import GestureEngine
import YAMLCoding

/// A problem in an actions file, located (`FILE:LINE:COLUMN: message`), as the daemon's
/// configuration errors are: the same type.
public typealias ActionsFileError = YAMLFileError

/// An actions file as loaded: the configuration, and where each rule's `on` is written (so a
/// warning about a rule can point at it).
public struct LoadedActions: Hashable, Sendable {
    public var configuration: ActionsConfiguration
    public var file: String
    /// `file`, then its drop-ins in the order they were merged.
    public var files: [String]
    /// `FILE:LINE:COLUMN` of each rule's `on`, in rule order (FILE: the drop-in it is in).
    public var ruleLocations: [String]

    public init(configuration: ActionsConfiguration, file: String, files: [String]? = nil, ruleLocations: [String]) {
        self.configuration = configuration
        self.file = file
        self.files = files ?? [file]
        self.ruleLocations = ruleLocations
    }
}

/// Reads an actions file (libyaml, through YAMLCoding) with the same strict decoding and the same
/// error positions as the daemon's configuration.
public enum ActionsLoader {
    /// The most bytes an actions file may have (docs/ACTIONS.md, "The file"): 256 rules with
    /// commands near the kernel's argument limit fit twice over; a real file has a few kilobytes.
    public static let maximumFileSize = 1 << 20

    /// The bytes of the actions file at `path`, or why it cannot be read (at 1:1): not a regular
    /// file, or over ``maximumFileSize`` (refused before it is read).
    public static func contents(of path: String) throws(ActionsFileError) -> [UInt8] {
        try YAMLFile.contents(of: path, limit: maximumFileSize, kind: "an actions file")
    }

    /// The lists a drop-in merges entry by entry: the rules, each told apart by its condition —
    /// `on`, its `name` and the filters written beside it (docs/ACTIONS.md, "Drop-in files").
    public static let dropInLists = [
        YAMLDropIns.List(
            key: ActionsConfiguration.CodingKeys.actions.rawValue,
            identity: ["on", "name", "state", "direction", "edge", "fingers", "region"], noun: "rule")
    ]

    /// The actions file at `path` and its drop-ins (`PATH.d/*.yaml`), merged, not yet decoded.
    public static func read(_ path: String) throws(ActionsFileError) -> YAMLFileSet {
        try YAMLFileSet.read(
            path, limit: maximumFileSize, kind: "an actions file", expecting: expecting, lists: dropInLists)
    }

    private static let expecting = "expected a mapping with 'actions' at the top level"

    /// Whether a top-level YAML mapping is an actions file rather than a daemon configuration (it
    /// has `actions`, which a daemon configuration never has): how `check-config` tells them apart.
    public static func isActionsFile(_ text: String) -> Bool {
        guard let root = try? YAMLNode.parse(text), let pairs = root.mapping else { return false }
        return pairs.contains { $0.key.scalar?.text == ActionsConfiguration.CodingKeys.actions.rawValue }
    }

    /// Decodes and checks the text of an actions file; `file` names it in errors. `isKeyName`
    /// says whether a name is a Linux key code's (libevdev's table, at the edge).
    public static func parse(
        _ bytes: [UInt8], file: String, isKeyName: (String) -> Bool
    ) throws(ActionsFileError) -> LoadedActions {
        try YAMLFile.checkSize(bytes.count, limit: maximumFileSize, kind: "an actions file", file: file)
        let document = try YAMLFile.mapping(bytes, file: file, expecting: expecting)
        return try parse(YAMLFileSet(root: document, file: file, dropIns: []), isKeyName: isKeyName)
    }

    /// Decodes and checks an actions file with its drop-ins, read by ``read(_:)``.
    public static func parse(
        _ set: YAMLFileSet, isKeyName: (String) -> Bool
    ) throws(ActionsFileError) -> LoadedActions {
        let file = set.file
        func located(_ mark: YAMLMark, _ message: String) -> ActionsFileError {
            ActionsFileError(file: file, at: mark, message)
        }
        guard let root = set.root else {
            throw located(YAMLMark(line: 1, column: 1), "the file is empty: it needs 'actions'")
        }
        // The daemon's file given where an actions file belongs (`actions --config`): say so, not
        // only that its first key is unknown here.
        let daemonKeys = ["recognizers", "regions", "devices", "websocket", "log-level", "clients", "record-group"]
        if let pairs = root.mapping, !pairs.contains(where: { $0.key.scalar?.text == "actions" }),
            let key = pairs.first(where: { daemonKeys.contains($0.key.scalar?.text ?? "") })?.key
        {
            throw located(
                key.mark,
                "this is the daemon's configuration (it has '\(key.scalar?.text ?? "")'), not an actions file: "
                    + "`gestured run --config` reads it; an actions file has 'actions:' at the top (docs/ACTIONS.md)")
        }
        let configuration = try YAMLFile.decode(ActionsConfiguration.self, from: root, file: file)
        func node(_ path: [any CodingKey]) -> YAMLNode { root.resolve(path).node }
        var locations: [String] = []
        var named: [String: YAMLMark] = [:]
        for (i, rule) in configuration.actions.enumerated() {
            let rulePath: [any CodingKey] = [AnyCodingKey(stringValue: "actions"), AnyCodingKey(intValue: i)!]
            let on = node(rulePath + [AnyCodingKey(stringValue: "on")]).mark
            locations.append("\(on.file ?? file):\(on.line):\(on.column)")
            if let name = rule.name {
                let mark = node(rulePath + [AnyCodingKey(stringValue: "name")]).mark
                if let first = named[name] {
                    throw located(
                        mark,
                        "a second rule named '\(name)' (the first is at \(first.file ?? file):\(first.line):"
                            + "\(first.column)): a name calls one rule")
                }
                named[name] = mark
            }
            guard case .keys(let chord, let repeating) = rule.action else { continue }
            let lists: [(String, KeyChord?)] = [("keys", chord), ("repeat", repeating?.reverse)]
            for (key, list) in lists {
                guard let list else { continue }
                for (j, name) in list.names.enumerated() where !isKeyName(name) || !name.hasPrefix("KEY_") {
                    var path = rulePath + [AnyCodingKey(stringValue: key)]
                    if key == "repeat" { path.append(AnyCodingKey(stringValue: "reverse")) }
                    path.append(AnyCodingKey(intValue: j)!)
                    throw located(node(path).mark, Self.unknownKey(name))
                }
            }
        }
        return LoadedActions(configuration: configuration, file: file, files: set.files, ruleLocations: locations)
    }

    static func unknownKey(_ name: String) -> String {
        var message =
            "unknown key name '\(name)': keys are named as in linux/input-event-codes.h, "
            + "such as KEY_LEFTCTRL, KEY_R, KEY_F5, KEY_VOLUMEUP"
        let upper = name.uppercased()
        if upper != name || (!name.hasPrefix("KEY_") && !name.hasPrefix("BTN_")) {
            message += " (upper case, with the KEY_ prefix)"
        } else if name.hasPrefix("BTN_") {
            message += " (buttons are 'click' actions)"
        }
        return message
    }
}
