import GestureEngine
import YAMLCoding

/// A problem in an actions file, located. Prints as `FILE:LINE:COLUMN: message`, like the
/// daemon's configuration errors.
public struct ActionsFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "\(file):\(line):\(column): \(message)" }
}

/// An actions file as loaded: the configuration, and where each rule's `on` is written (so a
/// warning about a rule can point at it).
public struct LoadedActions: Hashable, Sendable {
    public var configuration: ActionsConfiguration
    public var file: String
    /// `FILE:LINE:COLUMN` of each rule's `on`, in rule order.
    public var ruleLocations: [String]

    public init(configuration: ActionsConfiguration, file: String, ruleLocations: [String]) {
        self.configuration = configuration
        self.file = file
        self.ruleLocations = ruleLocations
    }
}

/// Reads an actions file (libyaml, through YAMLCoding) with the same strict decoding and the same
/// error positions as the daemon's configuration.
public enum ActionsLoader {
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
        func located(_ mark: YAMLMark, _ message: String) -> ActionsFileError {
            ActionsFileError(file: file, line: mark.line, column: mark.column, message: message)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw located(YAMLMark(ofFirstInvalidUTF8In: bytes), "the file is not valid UTF-8")
        }
        let parsed: YAMLNode?
        do {
            parsed = try YAMLNode.parse(text)
        } catch {
            throw located(error.mark, error.message)
        }
        guard let root = parsed else {
            throw located(YAMLMark(line: 1, column: 1), "the file is empty: it needs 'actions'")
        }
        guard root.mapping != nil else {
            throw located(root.mark, "expected a mapping with 'actions' at the top level")
        }
        let configuration: ActionsConfiguration
        do {
            configuration = try YAMLDecoder().decode(ActionsConfiguration.self, from: root)
        } catch let error as DecodingError {
            let found = root.locate(error)
            throw located(found.mark, found.message)
        } catch {
            throw located(root.mark, "\(error)")
        }
        func node(_ path: [any CodingKey]) -> YAMLNode { root.resolve(path).node }
        var locations: [String] = []
        for (i, rule) in configuration.actions.enumerated() {
            let rulePath: [any CodingKey] = [AnyCodingKey(stringValue: "actions"), AnyCodingKey(intValue: i)!]
            let on = node(rulePath + [AnyCodingKey(stringValue: "on")]).mark
            locations.append("\(file):\(on.line):\(on.column)")
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
        return LoadedActions(configuration: configuration, file: file, ruleLocations: locations)
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
