import FoundationEssentials
import GestureEngine
import Yams

/// A configuration problem, located in its file. Prints as `FILE:LINE:COLUMN: message`, the
/// form compilers use, so editors and CI logs link straight to it.
public struct ConfigurationFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { "\(file):\(line):\(column): \(message)" }
}

/// Reads the YAML configuration with Yams and decodes it with the definitions' strict Codable.
///
/// Yams reports syntax errors with a position but decoding errors only with a coding path, so
/// the loader composes the node tree first and maps every error's path back to the node it
/// names (for an unknown key, the key itself; for a missing key, its mapping).
public enum ConfigurationLoader {
    /// Loads and fully checks the file at `path`.
    public static func load(contentsOf path: String) throws(ConfigurationFileError) -> DaemonConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationFileError(file: path, line: 1, column: 1, message: "cannot read the file: \(error)")
        }
        return try parse(data, file: path)
    }

    /// Decodes and checks configuration text; `file` names it in errors.
    public static func parse(_ data: Data, file: String) throws(ConfigurationFileError) -> DaemonConfiguration {
        guard let text = String(validating: data, as: UTF8.self) else {
            let (line, column) = position(ofFirstInvalidUTF8In: data)
            throw ConfigurationFileError(file: file, line: line, column: column, message: "the file is not valid UTF-8")
        }
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else { return DaemonConfiguration() }
            root = node
        } catch {
            throw syntaxError(error, file: file, text: text)
        }
        guard root.mapping != nil else {
            throw located(at: root, file: file, "expected a mapping of settings at the top level")
        }
        let configuration: DaemonConfiguration
        do {
            configuration = try YAMLDecoder().decode(DaemonConfiguration.self, from: root)
        } catch let error as DecodingError {
            throw decodingError(error, root: root, file: file)
        } catch {
            throw located(at: root, file: file, "\(error)")
        }
        // References between definitions (names, parents, relations, cycles).
        do {
            try configuration.engineConfiguration.validate()
        } catch {
            throw specError(error, root: root, file: file)
        }
        return configuration
    }

    /// The configuration as YAML, with a header saying where it came from.
    public static func yaml(_ configuration: DaemonConfiguration, header: String) throws -> String {
        let body = plainNumbers(try YAMLEncoder().encode(configuration))
        let comment = header.split(separator: "\n", omittingEmptySubsequences: false).map { "# \($0)" }
        return comment.joined(separator: "\n") + "\n" + body
    }

    /// Yams writes every floating-point number in scientific notation (`3e+0`); people read
    /// `3.0`. Only plain scalars change: a string that looks like a number is quoted by Yams.
    private static func plainNumbers(_ yaml: String) -> String {
        yaml.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            guard let space = line.lastIndex(of: " ") else { return line }
            let scalar = line[line.index(after: space)...]
            guard scalar.contains("e"), let value = Double(scalar), value.isFinite else { return line }
            return line[...space] + Substring(value.description)
        }.joined(separator: "\n")
    }

    // MARK: - Errors → positions

    private static func located(at node: Node, file: String, _ message: String) -> ConfigurationFileError {
        let mark = node.mark
        return ConfigurationFileError(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1, message: message)
    }

    /// The error's position for a spec path (engine validation errors).
    private static func specError(_ error: SpecError, root: Node, file: String) -> ConfigurationFileError {
        let keys: [any CodingKey] = error.path.map { component in
            switch component {
            case .key(let k): AnyCodingKey(stringValue: k)
            case .index(let i): AnyCodingKey(intValue: i) ?? AnyCodingKey(stringValue: String(i))
            }
        }
        let target = resolve(keys, in: root)
        return located(at: target.node, file: file, error.message)
    }

    private static func decodingError(_ error: DecodingError, root: Node, file: String) -> ConfigurationFileError {
        switch error {
        case .keyNotFound(let key, let context):
            let target = resolve(context.codingPath, in: root)
            return located(at: target.node, file: file, "missing key '\(key.stringValue)'")
        case .typeMismatch(let type, let context):
            let target = resolve(context.codingPath, in: root)
            return located(at: target.node, file: file, "expected \(describe(type)), found \(describe(target.node))")
        case .valueNotFound(let type, let context):
            let target = resolve(context.codingPath, in: root)
            return located(at: target.node, file: file, "expected \(describe(type)), found nothing")
        case .dataCorrupted(let context):
            let target = resolve(context.codingPath, in: root)
            // Unknown keys point at the key; bad values at the value.
            let node = context.debugDescription.hasPrefix("unknown key") ? (target.keyNode ?? target.node) : target.node
            return located(at: node, file: file, message(context.debugDescription, at: target.node))
        @unknown default:
            return located(at: root, file: file, "\(error)")
        }
    }

    /// Yams' own messages for values it cannot convert are long; keep ours, and for Yams's
    /// scalar-conversion failures say what was found.
    private static func message(_ description: String, at node: Node) -> String {
        if description.hasPrefix("expected") {
            return description + (node.scalar != nil ? " (found '\(node.scalar!.string)')" : "")
        }
        return description
    }

    /// The node a coding path names (and, for a mapping entry, its key node). Stops at the
    /// deepest node that exists, which is where a missing piece belongs.
    private static func resolve(_ path: [any CodingKey], in root: Node) -> (node: Node, keyNode: Node?) {
        var node = root
        var keyNode: Node?
        for key in path {
            if let mapping = node.mapping,
                let pair = mapping.first(where: { $0.key.string == key.stringValue })
            {
                node = pair.value
                keyNode = pair.key
            } else if let sequence = node.sequence, let index = key.intValue, sequence.indices.contains(index) {
                node = sequence[index]
                keyNode = nil
            } else {
                break
            }
        }
        return (node, keyNode)
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int32.Type, is UInt32.Type, is UInt16.Type: "an integer"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is String.Type: "a string"
        default:
            String(describing: type).hasPrefix("Array") ? "a list" : "a mapping"
        }
    }

    private static func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let s): "'\(s.string)'"
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }

    private static func syntaxError(_ error: any Error, file: String, text: String) -> ConfigurationFileError {
        guard let yaml = error as? YamlError else {
            return ConfigurationFileError(file: file, line: 1, column: 1, message: "\(error)")
        }
        switch yaml {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            return ConfigurationFileError(file: file, line: mark.line, column: mark.column, message: problem)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let key = duplicates.first ?? "?"
            let (line, column) =
                secondOccurrence(ofKey: key, after: context.mark.line, in: text)
                ?? (context.mark.line, context.mark.column)
            return ConfigurationFileError(
                file: file, line: line, column: column, message: "duplicate key '\(key)' in this mapping")
        case .reader(let problem, let offset, _, _):
            let (line, column) = offset.map { position(ofCharacter: $0, in: text) } ?? (1, 1)
            return ConfigurationFileError(file: file, line: line, column: column, message: problem)
        case .no, .memory, .writer, .emitter, .representer, .dataCouldNotBeDecoded:
            return ConfigurationFileError(file: file, line: 1, column: 1, message: "\(yaml)")
        }
    }

    /// Yams names duplicate keys but only points at their mapping; find the repeated key line
    /// (block style: same indentation as the first occurrence).
    private static func secondOccurrence(ofKey key: String, after line: Int, in text: String) -> (Int, Int)? {
        var firstIndent: Int?
        for (number, content) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where number + 1 >= line {
            var body = Substring(content)
            var indent = body.prefix(while: { $0 == " " }).count
            body = body.dropFirst(indent)
            if body.hasPrefix("- ") {
                body = body.dropFirst(2)
                indent += 2
            }
            guard body.hasPrefix(key), body.dropFirst(key.count).drop(while: { $0 == " " }).hasPrefix(":") else {
                continue
            }
            if let first = firstIndent {
                if indent == first { return (number + 1, indent + 1) }
            } else {
                firstIndent = indent
            }
        }
        return nil
    }

    private static func position(ofCharacter offset: Int, in text: String) -> (Int, Int) {
        var line = 1
        var column = 1
        for character in text.prefix(offset) {
            if character == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (line, column)
    }

    private static func position(ofFirstInvalidUTF8In data: Data) -> (Int, Int) {
        // Decode the longest valid prefix; the first bad byte follows it.
        var line = 1
        var column = 1
        var iterator = data.makeIterator()
        var decoder = UTF8()
        while case .scalarValue(let scalar) = decoder.decode(&iterator) {
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (line, column)
    }
}
