import FoundationEssentials
import GestureEngine
import GestureServer
import Glibc
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
    /// Loads and fully checks the file at `path`, as `run`, a reload and `check-config` do: the
    /// text, and what it names on this system (the socket's group).
    public static func load(contentsOf path: String) throws(ConfigurationFileError) -> DaemonConfiguration {
        try load(try contents(of: path), file: path)
    }

    /// The bytes of the file at `path`, or why it cannot be read (at 1:1), as every file the
    /// command line takes is read (`check-config` reads a file once, then tells its kind).
    public static func contents(of path: String) throws(ConfigurationFileError) -> Data {
        if let kind = irregularKind(path) {
            throw ConfigurationFileError(
                file: path, line: 1, column: 1, message: "cannot read the file: it is \(kind), not a regular file")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationFileError(
                file: path, line: 1, column: 1, message: "cannot read the file: \(reason(error))")
        }
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

    /// What is at `path` when it exists and is neither a regular file nor a directory (a FIFO
    /// would block the read, a device such as `/dev/zero` never end; for a directory the system's
    /// "Is a directory" says it): `a named pipe (FIFO)`, `a character device`…
    static func irregularKind(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG, S_IFDIR: return nil
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "an unknown kind of file"
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
