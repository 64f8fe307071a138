import FoundationEssentials
import GestureEngine
import GestureServer
import Glibc
import TouchInput
import YAMLCoding

/// A configuration problem, located in its file. Prints as `FILE:LINE:COLUMN: message`, the
/// form compilers use, so editors and CI logs link straight to it.
public typealias ConfigurationFileError = YAMLFileError

/// A configuration as loaded, and the files it was read from.
public struct LoadedConfiguration: Hashable, Sendable {
    public var configuration: DaemonConfiguration
    /// The file `--config` names, then its drop-ins in the order they were merged.
    public var files: [String]
    /// What in the drop-in directory was not read, each as a sentence (``YAMLFileSet/ignoredDropIns(of:)``).
    public var ignored: [String]

    public init(configuration: DaemonConfiguration, files: [String], ignored: [String] = []) {
        self.configuration = configuration
        self.files = files
        self.ignored = ignored
    }
}

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

    /// Loads and fully checks the file at `path` with its drop-ins (`PATH.d/*.yaml`), as `run`, a
    /// reload and `check-config` do: the text, and what it names on this system (the socket's
    /// group, the panels' screen files).
    public static func load(contentsOf path: String) throws(ConfigurationFileError) -> DaemonConfiguration {
        try loadSet(contentsOf: path).configuration
    }

    /// ``load(contentsOf:)``, with the files it read.
    public static func loadSet(contentsOf path: String) throws(ConfigurationFileError) -> LoadedConfiguration {
        let set = try read(path)
        return LoadedConfiguration(
            configuration: try load(set), files: set.files, ignored: YAMLFileSet.ignoredDropIns(of: path))
    }

    /// The file at `path` and its drop-ins, merged (docs/CONFIGURATION.md, "Drop-in files"), not
    /// yet decoded.
    public static func read(_ path: String) throws(ConfigurationFileError) -> YAMLFileSet {
        try YAMLFileSet.read(
            path, limit: maximumFileSize, kind: "a configuration file", expecting: expecting,
            lists: try dropInLists())
    }

    /// Fully checks a file set read by ``read(_:)``, as ``load(contentsOf:)`` does.
    public static func load(_ set: YAMLFileSet) throws(ConfigurationFileError) -> DaemonConfiguration {
        withGroupIDs(
            try decode(set.root, file: set.file, groupProblem: groupProblem, screenProblem: { $0.problem() }))
    }

    /// `configuration` with its `record-group` and `touches-group` looked up (the groups exist:
    /// the full check just found them), here, off the input thread, so that deciding who may see
    /// where fingers are asks no one.
    private static func withGroupIDs(_ configuration: DaemonConfiguration) -> DaemonConfiguration {
        var configuration = configuration
        if let group = configuration.recordGroup { configuration.recordGroupID = try? SocketFile.groupID(group) }
        if let group = configuration.touchesGroup { configuration.touchesGroupID = try? SocketFile.groupID(group) }
        return configuration
    }

    /// The lists a drop-in merges entry by entry: recognizers and regions by name, device entries
    /// by their `match`. A drop-in adds to the built-in recognizers when the file lists none.
    static func dropInLists() throws(ConfigurationFileError) -> [YAMLDropIns.List] {
        [
            YAMLDropIns.List(
                key: "recognizers", identity: ["name"], noun: "recognizer", absent: try builtInRecognizers.get()),
            YAMLDropIns.List(key: "regions", identity: ["name"], noun: "region"),
            YAMLDropIns.List(key: "devices", identity: ["match"], noun: "device entry"),
        ]
    }

    /// What `gestured config --default` prints above the built-in configuration.
    public static let builtInHeader = """
        gestured built-in configuration (`gestured config --default`).
        Keys and defaults: docs/CONFIGURATION.md; recognizer parameters: docs/RECOGNIZERS.md.
        """

    /// What errors in the built-in recognizers a drop-in added to name as their file: the line
    /// and column are those of `gestured config --default`'s output.
    public static let builtInFile = "<built-in: gestured config --default>"

    /// The built-in recognizers as `gestured config --default` prints them, each node at its
    /// line there; made once, when first needed.
    private static let builtInRecognizers = Result { () throws(ConfigurationFileError) in try printedBuiltIn() }

    private static func printedBuiltIn() throws(ConfigurationFileError) -> YAMLNode? {
        let text: String
        do {
            text = try yaml(.builtIn, header: builtInHeader)
        } catch {
            throw ConfigurationFileError(file: builtInFile, line: 1, column: 1, message: "\(error)")
        }
        do {
            let root = try YAMLNode.parse(text)
            return root?.mapping?.first { $0.key.scalar?.text == "recognizers" }?.value.inFile(builtInFile)
        } catch {
            throw ConfigurationFileError(file: builtInFile, at: error.mark, error.message)
        }
    }

    private static let expecting = "expected a mapping of settings at the top level"

    /// What is wrong with a group (the socket's, `record-group`, `touches-group`: a name or a
    /// gid) on this system (nil: nothing). A gid no group has is refused as an unknown name is:
    /// it is a typing mistake more often than a group the system does not list, and a group
    /// granting rights should be one an administrator can see (`getent group`).
    private static func groupProblem(_ group: String) -> String? {
        if let gid = gid_t(group) {
            var entry = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>? = nil
            var buffer = [CChar](repeating: 0, count: 65_536)
            let code = getgrgid_r(gid, &entry, &buffer, buffer.count, &result)
            if code == 0 && result != nil { return nil }
            return code == 0
                ? "no group has gid \(gid) (getent group lists the groups)"
                : "cannot look up gid \(gid): \(String(cString: strerror(code)))"
        }
        do throws(ServerError) {
            _ = try SocketFile.groupID(group)
            return nil
        } catch {
            return error.message
        }
    }

    /// The bytes of the file at `path`, or why it cannot be read (at 1:1): not a regular file, or
    /// over ``maximumFileSize`` (refused before it is read), as every configuration the command
    /// line takes is read.
    public static func contents(of path: String) throws(ConfigurationFileError) -> Data {
        Data(try YAMLFile.contents(of: path, limit: maximumFileSize, kind: "a configuration file"))
    }

    /// Fully checks configuration text read from `file`, as ``load(contentsOf:)`` does.
    public static func load(_ data: Data, file: String) throws(ConfigurationFileError) -> DaemonConfiguration {
        withGroupIDs(try parse(data, file: file, groupProblem: groupProblem, screenProblem: { $0.problem() }))
    }

    /// Decodes and checks configuration text; `file` names it in errors. `groupProblem` says what
    /// is wrong with a group name on this system (nil: nothing) — the socket's and `record-group`;
    /// `screenProblem` what is wrong with a panel's screen file; without them neither is looked at.
    public static func parse(
        _ data: Data, file: String, groupProblem: (String) -> String? = { _ in nil },
        screenProblem: (PanelWake.ScreenFile) -> String? = { _ in nil }
    ) throws(ConfigurationFileError) -> DaemonConfiguration {
        try YAMLFile.checkSize(data.count, limit: maximumFileSize, kind: "a configuration file", file: file)
        return try decode(
            try YAMLFile.mapping(data, file: file, expecting: expecting), file: file, groupProblem: groupProblem,
            screenProblem: screenProblem)
    }

    /// Decodes and checks a configuration's document (nil: an empty file); `file` names it in
    /// errors where a node does not name the drop-in it came from.
    private static func decode(
        _ document: YAMLNode?, file: String, groupProblem: (String) -> String?,
        screenProblem: (PanelWake.ScreenFile) -> String?
    ) throws(ConfigurationFileError) -> DaemonConfiguration {
        guard let root = document else { return DaemonConfiguration() }
        let configuration = try YAMLFile.decode(DaemonConfiguration.self, from: root, file: file)
        if let group = configuration.socket.group, let problem = groupProblem(group) {
            let target = root.resolve([AnyCodingKey(stringValue: "socket"), AnyCodingKey(stringValue: "group")])
            throw ConfigurationFileError(file: file, at: target.node.mark, problem)
        }
        let groups = [("record-group", configuration.recordGroup), ("touches-group", configuration.touchesGroup)]
        for (key, group) in groups {
            guard let group, let problem = groupProblem(group) else { continue }
            let target = root.resolve([AnyCodingKey(stringValue: key)])
            throw ConfigurationFileError(file: file, at: target.node.mark, problem)
        }
        for (index, device) in configuration.devices.enumerated() {
            guard let screen = device.screen, let problem = screenProblem(screen) else { continue }
            let entry = AnyCodingKey(intValue: index) ?? AnyCodingKey(stringValue: "\(index)")
            let target = root.resolve([
                AnyCodingKey(stringValue: "devices"), entry, AnyCodingKey(stringValue: "screen"),
                AnyCodingKey(stringValue: screen.kind.rawValue),
            ])
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
