/// One parser event, as libyaml reports it (LibYAML.swift turns its C events into these).
public enum YAMLEvent: Sendable {
    case documentStart(YAMLMark)
    case documentEnd
    case scalar(YAMLScalar, anchor: String?, at: YAMLMark)
    case sequenceStart(tag: String?, anchor: String?, at: YAMLMark)
    case sequenceEnd
    case mappingStart(tag: String?, anchor: String?, at: YAMLMark)
    case mappingEnd
    case alias(String, at: YAMLMark)
}

/// Builds the node tree of a one-document stream from parser events, without recursion.
///
/// What libyaml leaves to its caller is checked here: aliases name an anchor defined before them;
/// keys are unique within a mapping (the second one is the error); merge keys (`<<: *base`) copy
/// the keys the mapping does not set itself; tags are the standard ones; one document only. Two
/// limits keep hostile input cheap: nesting depth, and how many nodes aliases may add (each alias
/// of a big anchor would otherwise multiply the work of every reader of the tree).
struct YAMLComposer {
    static let maxDepth = 64
    static let maxNodesAddedByAliases = 100_000

    private struct Collection {
        var mark: YAMLMark
        var anchor: String?
        var isMapping: Bool
        var items: [YAMLNode] = []
        var pairs: [YAMLPair] = []
        var pendingKey: YAMLNode?
        var keys: Set<String> = []
        /// Mappings merged in with `<<`, in order (earlier ones win).
        var merged: [YAMLNode] = []
    }

    private var stack: [Collection] = []
    private var anchors: [String: YAMLNode] = [:]
    private var nodesAddedByAliases = 0
    private var documents = 0
    private(set) var root: YAMLNode?

    /// The node finished last, handed over once: a composer fed one node at a time
    /// (``YAMLEventReader/node(startingWith:)``) keeps its anchors and alias budget between them.
    mutating func takeRoot() -> YAMLNode? {
        defer { root = nil }
        return root
    }

    mutating func handle(_ event: YAMLEvent) throws(YAMLError) {
        switch event {
        case .documentStart(let mark):
            documents += 1
            guard documents == 1 else {
                throw YAMLError("a second YAML document; the file must hold one", at: mark)
            }
        case .documentEnd:
            break
        case .scalar(let scalar, let anchor, let mark):
            try add(YAMLNode(.scalar(scalar), at: mark), anchor: anchor)
        case .sequenceStart(let tag, let anchor, let mark):
            try checkCollectionTag(tag, "seq", at: mark)
            try push(Collection(mark: mark, anchor: anchor, isMapping: false))
        case .mappingStart(let tag, let anchor, let mark):
            try checkCollectionTag(tag, "map", at: mark)
            try push(Collection(mark: mark, anchor: anchor, isMapping: true))
        case .sequenceEnd:
            let done = stack.removeLast()
            try add(YAMLNode(.sequence(done.items), at: done.mark), anchor: done.anchor)
        case .mappingEnd:
            var done = stack.removeLast()
            for source in done.merged {
                for pair in source.mapping ?? [] {
                    guard let key = pair.key.scalar?.text else { continue }
                    if done.keys.insert(key).inserted { done.pairs.append(pair) }
                }
            }
            try add(YAMLNode(.mapping(done.pairs), at: done.mark), anchor: done.anchor)
        case .alias(let name, let mark):
            guard var node = anchors[name] else {
                throw YAMLError("unknown alias '*\(name)' (no anchor '&\(name)' before it)", at: mark)
            }
            nodesAddedByAliases += node.size
            guard nodesAddedByAliases <= Self.maxNodesAddedByAliases else {
                throw YAMLError(
                    "aliases expand to more than \(Self.maxNodesAddedByAliases) nodes; write the values out",
                    at: mark)
            }
            // An alias is written where it is used, but its content is the anchor's: keep the
            // anchor's marks inside, and its own position on the node.
            node.mark = mark
            try add(node, anchor: nil)
        }
    }

    private mutating func push(_ collection: Collection) throws(YAMLError) {
        guard stack.count < Self.maxDepth else {
            throw YAMLError("nested more than \(Self.maxDepth) levels deep", at: collection.mark)
        }
        stack.append(collection)
    }

    private func checkCollectionTag(_ tag: String?, _ expected: String, at mark: YAMLMark) throws(YAMLError) {
        guard let tag, tag != "!", tag != "tag:yaml.org,2002:" + expected else { return }
        throw YAMLError("unsupported tag '\(tag)'", at: mark)
    }

    /// A finished node goes to the open collection (as an item, a key or a value), or is the root.
    private mutating func add(_ node: YAMLNode, anchor: String?) throws(YAMLError) {
        if let anchor { anchors[anchor] = node }
        guard var top = stack.popLast() else {
            root = node
            return
        }
        defer { stack.append(top) }
        guard top.isMapping else {
            top.items.append(node)
            return
        }
        guard let key = top.pendingKey else {
            top.pendingKey = node
            return
        }
        top.pendingKey = nil
        if let scalar = key.scalar, scalar.style == .plain, scalar.tag == nil, scalar.text == "<<" {
            top.merged += try mergeSources(node, at: key.mark)
            return
        }
        // Merged keys join at the mapping's end (its own keys replace them), so `keys` holds the
        // keys written in this mapping only.
        if let text = key.scalar?.text, !top.keys.insert(text).inserted {
            throw YAMLError("duplicate key '\(text)' in this mapping", at: key.mark)
        }
        top.pairs.append(YAMLPair(key: key, value: node))
    }

    /// `<<: *a` or `<<: [*a, *b]`: mappings whose keys are merged in.
    private func mergeSources(_ value: YAMLNode, at mark: YAMLMark) throws(YAMLError) -> [YAMLNode] {
        let sources = value.sequence ?? [value]
        for source in sources where source.mapping == nil {
            throw YAMLError("a merge key '<<' takes a mapping or a list of mappings, found \(source.summary)", at: mark)
        }
        return sources
    }
}
