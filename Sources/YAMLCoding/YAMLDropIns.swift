import Glibc

/// Drop-in files merged onto a YAML file whose top level is a mapping: the daemon's
/// configuration and the actions file (docs/CONFIGURATION.md, "Drop-in files"). Each drop-in is
/// applied to what the files before it made:
///
/// - `remove:` (a drop-in's own key) first takes entries out of the lists by their identity:
///   `remove: {recognizers: [double-tap]}`; an identity nothing has is an error;
/// - a list the file's kind names (``List``: recognizers by `name`, devices by `match`, …) then
///   gets the drop-in's entries of each identity in place of every entry of that identity, or at
///   its end;
/// - a mapping is merged key by key (so a drop-in sets `socket.max-clients` and keeps the rest
///   of `socket`);
/// - anything else — a scalar, another list — is replaced.
///
/// Every node keeps the file it was written in (``YAMLMark/file``), so an error in the merged
/// document names the drop-in and the line and column in it.
public enum YAMLDropIns {
    /// A list merged entry by entry, and how its entries are told apart.
    public struct List: Sendable {
        /// The top-level key (`recognizers`).
        public var key: String
        /// The entry's keys whose values are its identity (`name`, `match`, or several keys for
        /// the actions' rules: their condition); the first is required of a drop-in's entry.
        public var identity: [String]
        /// What one entry is called in messages (`recognizer`).
        public var noun: String
        /// What the list is when the file does not have the key (the built-in recognizers), for
        /// a drop-in to add to and remove from; nil: nothing.
        public var absent: YAMLNode?

        public init(key: String, identity: [String], noun: String, absent: YAMLNode? = nil) {
            self.key = key
            self.identity = identity
            self.noun = noun
            self.absent = absent
        }
    }

    /// The key of a drop-in that removes entries.
    public static let removeKey = "remove"

    /// The most drop-ins one file takes (docs/CONFIGURATION.md, "Drop-in files"): a role, a site
    /// and a host each dropping a few fit many times over.
    public static let maximumCount = 32

    /// The most bytes a file and its drop-ins may have together: four times the largest file, so
    /// the set costs at most four times what the largest file costs to check.
    public static let maximumSetSize = 4 << 20

    /// `dropIn` (a document's top-level mapping) applied to `base` (nil: nothing yet).
    public static func merge(_ dropIn: YAMLNode, onto base: YAMLNode?, lists: [List]) throws(YAMLError) -> YAMLNode {
        guard let additions = dropIn.mapping else { throw YAMLError("expected a mapping", at: dropIn.mark) }
        var pairs = base?.mapping ?? []
        if let removals = additions.first(where: { $0.key.scalar?.text == removeKey }) {
            try remove(removals, from: &pairs, lists: lists)
        }
        var index = keyIndex(pairs)
        for pair in additions where pair.key.scalar?.text != removeKey {
            let key = pair.key.scalar?.text
            let list = lists.first { $0.key == key }
            guard let at = key.flatMap({ index[$0] }) else {
                if let key { index[key] = pairs.count }
                if let list {
                    // Onto what the list is without the key: its entries are checked as any.
                    let base = list.absent ?? YAMLNode(.sequence([]), at: pair.value.mark)
                    pairs.append(YAMLPair(key: pair.key, value: try mergeList(pair.value, onto: base, list)))
                } else {
                    pairs.append(pair)
                }
                continue
            }
            if let list {
                pairs[at].value = try mergeList(pair.value, onto: pairs[at].value, list)
            } else {
                pairs[at].value = mergeMapping(pair.value, onto: pairs[at].value)
            }
        }
        return YAMLNode(.mapping(pairs), at: base?.mark ?? dropIn.mark)
    }

    /// A value of the drop-in onto the file's: mappings key by key, anything else replaced.
    private static func mergeMapping(_ value: YAMLNode, onto base: YAMLNode) -> YAMLNode {
        guard let additions = value.mapping, var pairs = base.mapping else { return value }
        var index = keyIndex(pairs)
        for pair in additions {
            let key = pair.key.scalar?.text
            if let at = key.flatMap({ index[$0] }) {
                pairs[at].value = mergeMapping(pair.value, onto: pairs[at].value)
            } else {
                if let key { index[key] = pairs.count }
                pairs.append(pair)
            }
        }
        return YAMLNode(.mapping(pairs), at: base.mark)
    }

    /// Where each key of a mapping is (keys are unique: the parser refuses a duplicate), so a
    /// merge takes time in proportion to the keys, not to their product.
    private static func keyIndex(_ pairs: [YAMLPair]) -> [String: Int] {
        var index: [String: Int] = [:]
        for (at, pair) in pairs.enumerated() {
            if let key = pair.key.scalar?.text, index[key] == nil { index[key] = at }
        }
        return index
    }

    /// The drop-in's entries of each identity in place of every entry of that identity (where
    /// the first of them was), the others at the end, in the drop-in's order.
    private static func mergeList(
        _ additions: YAMLNode, onto base: YAMLNode, _ list: List
    ) throws(YAMLError)
        -> YAMLNode
    {
        guard let added = additions.sequence else {
            throw YAMLError("expected a list of \(list.noun)s for '\(list.key)'", at: additions.mark)
        }
        // Not a list (`recognizers:` with no value): the drop-in's list replaces it.
        guard let items = base.sequence else { return additions }
        var identities: [String] = []
        var groups: [String: [YAMLNode]] = [:]
        for entry in added {
            let identity = try self.identity(of: entry, list)
            identities.append(identity)
            groups[identity, default: []].append(entry)
        }
        var merged: [YAMLNode] = []
        var placed: Set<String> = []
        for item in items {
            guard let identity = try? self.identity(of: item, list), let group = groups[identity] else {
                merged.append(item)
                continue
            }
            if placed.insert(identity).inserted { merged.append(contentsOf: group) }
        }
        for (entry, identity) in zip(added, identities) where !placed.contains(identity) { merged.append(entry) }
        return YAMLNode(.sequence(merged), at: base.mark)
    }

    private static func remove(_ removals: YAMLPair, from pairs: inout [YAMLPair], lists: [List]) throws(YAMLError) {
        guard let entries = removals.value.mapping else {
            throw YAMLError(
                "expected a mapping of lists to entries to remove (remove: {recognizers: [name]})",
                at: removals.value.mark)
        }
        for entry in entries {
            let key = entry.key.scalar?.text ?? ""
            guard let list = lists.first(where: { $0.key == key }) else {
                let known = lists.map { "'\($0.key)'" }.joined(separator: ", ")
                throw YAMLError("cannot remove from '\(key)': entries are removed from \(known)", at: entry.key.mark)
            }
            guard let names = entry.value.sequence else {
                throw YAMLError("expected a list of \(list.noun)s to remove", at: entry.value.mark)
            }
            let at = pairs.firstIndex { $0.key.scalar?.text == key }
            let base = at.map { pairs[$0].value } ?? list.absent
            let items = base?.sequence ?? []
            var removed: [(identity: String, mark: YAMLMark)] = []
            for name in names {
                // A name alone, or (for an identity of several keys) a mapping of them.
                let identity =
                    list.identity.count == 1 && name.mapping == nil
                    ? canonical(name) : try self.identity(of: name, list)
                removed.append((identity, name.mark))
            }
            let identities = Set(removed.map(\.identity))
            var found: Set<String> = []
            let kept = items.filter { item in
                guard let identity = try? self.identity(of: item, list), identities.contains(identity) else {
                    return true
                }
                found.insert(identity)
                return false
            }
            if let missing = removed.first(where: { !found.contains($0.identity) }) {
                throw YAMLError(
                    "no \(list.noun) \(missing.identity) to remove in '\(key)' (of the file and the drop-ins before this one)",
                    at: missing.mark)
            }
            let node = YAMLNode(.sequence(kept), at: base?.mark ?? entry.key.mark)
            if let at { pairs[at].value = node } else { pairs.append(YAMLPair(key: entry.key, value: node)) }
        }
    }

    /// An entry's identity as text: the values of the list's identity keys, canonical (`name:
    /// tap` and `name: "tap"` are one).
    private static func identity(of entry: YAMLNode, _ list: List) throws(YAMLError) -> String {
        guard let pairs = entry.mapping else {
            throw YAMLError("expected a \(list.noun) (a mapping)", at: entry.mark)
        }
        var parts: [String] = []
        for key in list.identity {
            if let value = pairs.first(where: { $0.key.scalar?.text == key })?.value {
                parts.append(list.identity.count == 1 ? canonical(value) : "\(key): \(canonical(value))")
            }
        }
        guard let first = list.identity.first, pairs.contains(where: { $0.key.scalar?.text == first }) else {
            let by = list.identity.count == 1 ? "it" : list.identity.map { "'\($0)'" }.joined(separator: ", ")
            throw YAMLError(
                "a \(list.noun) in a drop-in needs '\(list.identity.first ?? "")': entries are added, replaced "
                    + "and removed by \(by)",
                at: entry.mark)
        }
        return list.identity.count == 1 ? parts[0] : "{" + parts.joined(separator: ", ") + "}"
    }

    /// A node as text that ignores how it was written: scalars by their text, mappings by their
    /// keys in order.
    private static func canonical(_ node: YAMLNode) -> String {
        switch node.content {
        case .scalar(let s): "'\(s.text)'"
        case .sequence(let items): "[" + items.map(canonical).joined(separator: ", ") + "]"
        case .mapping(let pairs):
            "{"
                + pairs.sorted { ($0.key.scalar?.text ?? "") < ($1.key.scalar?.text ?? "") }
                .map { "\($0.key.scalar?.text ?? ""): \(canonical($0.value))" }.joined(separator: ", ") + "}"
        }
    }
}

/// A file and its drop-ins, read and merged into one document.
public struct YAMLFileSet: Sendable {
    /// The merged document; nil when no file of the set has one (all empty, or only comments).
    public var root: YAMLNode?
    /// The file the set is named by (`--config`).
    public var file: String
    /// Its drop-ins, in the order they were merged.
    public var dropIns: [String]

    public init(root: YAMLNode?, file: String, dropIns: [String]) {
        self.root = root
        self.file = file
        self.dropIns = dropIns
    }

    /// The file, then its drop-ins in the order they were merged.
    public var files: [String] { [file] + dropIns }

    /// Where the drop-ins of `file` are: `FILE.d`.
    public static func directory(of file: String) -> String { file + ".d" }

    /// Reads `file` and the drop-ins in its directory (``directory(of:)``), and merges them in
    /// the order of their names; `lists` are the file kind's lists merged by entry. Each file is
    /// read as ``YAMLFile/contents(of:limit:kind:)`` reads one (`limit` bytes at most) and its
    /// top level must be a mapping (`expecting` says what else it should hold); every problem is
    /// located in the file it is in.
    public static func read(
        _ file: String, limit: Int, kind: String, expecting: String, lists: [YAMLDropIns.List]
    ) throws(YAMLFileError) -> YAMLFileSet {
        let dropIns = try dropInPaths(of: file)
        var total = 0
        var root: YAMLNode?
        for (index, path) in ([file] + dropIns).enumerated() {
            let bytes = try YAMLFile.contents(of: path, limit: limit, kind: kind, dropIn: index > 0)
            total += bytes.count
            if total > YAMLDropIns.maximumSetSize {
                throw YAMLFileError(
                    file: path, line: 1, column: 1,
                    message:
                        "\(file) and its drop-ins up to this one have \(total) bytes: together they are at most "
                        + YAMLFile.describe(bytes: YAMLDropIns.maximumSetSize))
            }
            guard let document = try YAMLFile.mapping(bytes, file: path, expecting: expecting) else { continue }
            guard index > 0 else {
                root = document
                continue
            }
            do {
                root = try YAMLDropIns.merge(document.inFile(path), onto: root, lists: lists)
            } catch {
                throw YAMLFileError(file: path, at: error.mark, error.message)
            }
        }
        return YAMLFileSet(root: root, file: file, dropIns: dropIns)
    }

    /// The drop-ins of `file`: the regular files (or links to them) named `*.yaml` in its
    /// directory, not hidden (`.name.yaml`), sorted by name byte by byte; none when the directory
    /// does not exist. More than ``YAMLDropIns/maximumCount`` is an error, and so is a directory
    /// another user may write (``DropInTrust``).
    public static func dropInPaths(of file: String) throws(YAMLFileError) -> [String] {
        let directory = directory(of: file)
        func failure(_ message: String) -> YAMLFileError {
            YAMLFileError(file: directory, line: 1, column: 1, message: message)
        }
        guard let stream = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw failure("cannot read the drop-in directory: \(String(cString: strerror(errno)))")
        }
        defer { closedir(stream) }
        if let problem = DropInTrust.problem(ofOpen: dirfd(stream), kind: .directory) { throw failure(problem) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 {
                    throw failure("cannot read the drop-in directory: \(String(cString: strerror(errno)))")
                }
                break
            }
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard let name = String(validating: bytes, as: UTF8.self) else {
                guard bytes.reversed().starts(with: Array(".yaml".utf8).reversed()) else { continue }
                throw failure("a drop-in's name is not valid UTF-8: rename it")
            }
            guard name.hasSuffix(".yaml"), !name.hasPrefix(".") else { continue }
            names.append(name)
        }
        guard names.count <= YAMLDropIns.maximumCount else {
            throw failure(
                "the directory has \(names.count) drop-ins: a file takes at most \(YAMLDropIns.maximumCount)")
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { directory + "/" + $0 }
    }
}

extension YAMLNode {
    /// The node with every mark in it naming `file`.
    public func inFile(_ file: String) -> YAMLNode {
        var mark = self.mark
        mark.file = file
        switch content {
        case .scalar: return YAMLNode(content, at: mark)
        case .sequence(let items): return YAMLNode(.sequence(items.map { $0.inFile(file) }), at: mark)
        case .mapping(let pairs):
            return YAMLNode(
                .mapping(pairs.map { YAMLPair(key: $0.key.inFile(file), value: $0.value.inFile(file)) }), at: mark)
        }
    }
}
