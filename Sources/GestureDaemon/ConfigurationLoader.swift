import FoundationEssentials
import GestureEngine
import GestureServer
import YAMLCoding

/// A configuration problem, located in its file. Prints as `FILE:LINE:COLUMN: message`, the
/// form compilers use, so editors and CI logs link straight to it.
public typealias ConfigurationFileError = YAMLFileError

/// Reads the YAML configuration (libyaml, through YAMLCoding) and decodes it with the
/// definitions' strict Codable — the same code a client's JSON `define` goes through.
///
/// Errors raised while reading YAML carry their node's position; errors the definitions raise
/// (unknown keys, values out of range) carry a coding path, which the loader follows through the
/// node tree to the node it names (for an unknown key, the key itself; for a key written without
/// a value, the key).
public enum ConfigurationLoader {
    /// The most bytes a configuration file may have (docs/CONFIGURATION.md, "Errors"): a hundred
    /// times a large kiosk's (fifty shapes of 1000-point templates fit), and what the daemon
    /// parses in well under a second with its memory growing by at most ~50 MB while it does, for
    /// the densest YAML (a flow list of one-digit numbers).
    public static let maximumFileSize = 1 << 20

    /// Loads and fully checks the file at `path`, as `run`, a reload and `check-config` do: the
    /// text, and what it names on this system (the socket's group).
    public static func load(contentsOf path: String) throws(ConfigurationFileError) -> DaemonConfiguration {
        try load(try contents(of: path), file: path)
    }

    /// The bytes of the file at `path`, or why it cannot be read (at 1:1): not a regular file, or
    /// over ``maximumFileSize`` (refused before it is read), as every configuration the command
    /// line takes is read.
    public static func contents(of path: String) throws(ConfigurationFileError) -> Data {
        Data(try YAMLFile.contents(of: path, limit: maximumFileSize, kind: "a configuration file"))
    }

    /// Fully checks configuration text read from `file`, as ``load(contentsOf:)`` does.
    public static func load(_ data: Data, file: String) throws(ConfigurationFileError) -> DaemonConfiguration {
        try parse(data, file: file) { group in
            do throws(ServerError) {
                _ = try SocketFile.groupID(group)
                return nil
            } catch {
                return error.message
            }
        }
    }

    /// Decodes and checks configuration text; `file` names it in errors. `groupProblem` says what
    /// is wrong with a socket group name on this system (nil: nothing); without it the group is
    /// not looked up.
    public static func parse(
        _ data: Data, file: String, groupProblem: (String) -> String? = { _ in nil }
    ) throws(ConfigurationFileError) -> DaemonConfiguration {
        try YAMLFile.checkSize(data.count, limit: maximumFileSize, kind: "a configuration file", file: file)
        let document = try YAMLFile.mapping(
            data, file: file, expecting: "expected a mapping of settings at the top level")
        guard let root = document else { return DaemonConfiguration() }
        let configuration = try YAMLFile.decode(DaemonConfiguration.self, from: root, file: file)
        if let group = configuration.socket.group, let problem = groupProblem(group) {
            let target = root.resolve([AnyCodingKey(stringValue: "socket"), AnyCodingKey(stringValue: "group")])
            throw ConfigurationFileError(file: file, at: target.node.mark, problem)
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

    /// The error's position for a spec path (engine validation errors).
    private static func specError(_ error: SpecError, root: YAMLNode, file: String) -> ConfigurationFileError {
        let keys: [any CodingKey] = error.path.map { component in
            switch component {
            case .key(let k): AnyCodingKey(stringValue: k)
            case .index(let i): AnyCodingKey(intValue: i) ?? AnyCodingKey(stringValue: String(i))
            }
        }
        return ConfigurationFileError(file: file, at: root.resolve(keys).node.mark, error.message)
    }
}
