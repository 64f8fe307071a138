import FoundationEssentials
import GestureEngine
import GestureServer
import Glibc
import YAMLCoding

/// A configuration problem, located in its file. Prints as `FILE:LINE:COLUMN: message`, the
/// form compilers use, so editors and CI logs link straight to it.
public struct ConfigurationFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { "\(file):\(line):\(column): \(message)" }
}

/// Reads the YAML configuration (libyaml, through YAMLCoding) and decodes it with the
/// definitions' strict Codable — the same code a client's JSON `define` goes through.
///
/// Errors raised while reading YAML carry their node's position; errors the definitions raise
/// (unknown keys, values out of range) carry a coding path, which the loader follows through the
/// node tree to the node it names (for an unknown key, the key itself; for a key written without
/// a value, the key).
public enum ConfigurationLoader {
    /// Loads and fully checks the file at `path`, as `run`, a reload and `check-config` do: the
    /// text, and what it names on this system (the socket's group).
    public static func load(contentsOf path: String) throws(ConfigurationFileError) -> DaemonConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationFileError(
                file: path, line: 1, column: 1, message: "cannot read the file: \(reason(error))")
        }
        return try parse(data, file: path) { group in
            do throws(ServerError) {
                _ = try SocketFile.groupID(group)
                return nil
            } catch {
                return error.message
            }
        }
    }

    /// Why a file could not be read, as the system says it ("No such file or directory"), not
    /// Foundation's description of the error value.
    static func reason(_ error: any Error) -> String {
        let posix = (error as? CocoaError)?.underlying as? POSIXError ?? error as? POSIXError
        guard let posix else { return "\(error)" }
        return String(cString: strerror(posix.code.rawValue))
    }

    /// Decodes and checks configuration text; `file` names it in errors. `groupProblem` says what
    /// is wrong with a socket group name on this system (nil: nothing); without it the group is
    /// not looked up.
    public static func parse(
        _ data: Data, file: String, groupProblem: (String) -> String? = { _ in nil }
    ) throws(ConfigurationFileError) -> DaemonConfiguration {
        guard let text = String(validating: data, as: UTF8.self) else {
            let (line, column) = position(ofFirstInvalidUTF8In: data)
            throw ConfigurationFileError(file: file, line: line, column: column, message: "the file is not valid UTF-8")
        }
        let root: YAMLNode
        do {
            guard let node = try YAMLNode.parse(text) else { return DaemonConfiguration() }
            root = node
        } catch {
            throw located(error.mark, file: file, error.message)
        }
        guard root.mapping != nil else {
            throw located(root.mark, file: file, "expected a mapping of settings at the top level")
        }
        let configuration: DaemonConfiguration
        do {
            configuration = try YAMLDecoder().decode(DaemonConfiguration.self, from: root)
        } catch let error as DecodingError {
            throw decodingError(error, root: root, file: file)
        } catch {
            throw located(root.mark, file: file, "\(error)")
        }
        if let group = configuration.socket.group, let problem = groupProblem(group) {
            let target = resolve([AnyCodingKey(stringValue: "socket"), AnyCodingKey(stringValue: "group")], in: root)
            throw located(target.node.mark, file: file, problem)
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
        let body = try YAMLEncoder().encode(configuration).emitted()
        let comment = header.split(separator: "\n", omittingEmptySubsequences: false).map { "# \($0)" }
        return comment.joined(separator: "\n") + "\n" + body
    }

    // MARK: - Errors → positions

    private static func located(_ mark: YAMLMark, file: String, _ message: String) -> ConfigurationFileError {
        ConfigurationFileError(file: file, line: mark.line, column: mark.column, message: message)
    }

    /// The error's position for a spec path (engine validation errors).
    private static func specError(_ error: SpecError, root: YAMLNode, file: String) -> ConfigurationFileError {
        let keys: [any CodingKey] = error.path.map { component in
            switch component {
            case .key(let k): AnyCodingKey(stringValue: k)
            case .index(let i): AnyCodingKey(intValue: i) ?? AnyCodingKey(stringValue: String(i))
            }
        }
        return located(resolve(keys, in: root).node.mark, file: file, error.message)
    }

    private static func decodingError(_ error: DecodingError, root: YAMLNode, file: String) -> ConfigurationFileError {
        let context: DecodingError.Context
        switch error {
        case .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
            context = c
        @unknown default:
            return located(root.mark, file: file, "\(error)")
        }
        // Raised while reading YAML: the decoder knows the node.
        if let yaml = context.underlyingError as? YAMLError {
            return located(yaml.mark, file: file, yaml.message)
        }
        // Raised by a definition's own checks: follow the path; say what was found.
        let target = resolve(context.codingPath, in: root)
        var message = context.debugDescription
        if message.hasPrefix("expected"), let scalar = target.node.scalar {
            message += " (found '\(scalar.text)')"
        }
        let pointsAtKey = message.hasPrefix("unknown key") || target.node.scalar.map { $0.isNull && $0.text.isEmpty } == true
        return located(pointsAtKey ? (target.key ?? target.node).mark : target.node.mark, file: file, message)
    }

    /// The node a coding path names and, for a mapping entry, its key. Stops at the deepest node
    /// that exists, which is where a missing piece belongs.
    private static func resolve(_ path: [any CodingKey], in root: YAMLNode) -> (node: YAMLNode, key: YAMLNode?) {
        var node = root
        var key: YAMLNode?
        for component in path {
            if let pair = node.mapping?.first(where: { $0.key.scalar?.text == component.stringValue }) {
                node = pair.value
                key = pair.key
            } else if let items = node.sequence, let index = component.intValue, items.indices.contains(index) {
                node = items[index]
                key = nil
            } else {
                break
            }
        }
        return (node, key)
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
