import Foundation
import Glibc
import TestSupport
import Testing
import YAMLCoding

/// Drop-ins merged onto a file (YAMLDropIns): the rules of docs/CONFIGURATION.md, "Drop-in
/// files", on documents alone; the loaders' tests run them through real files.
@Suite("Drop-in merge")
struct YAMLDropInsTests {
    static let lists = [
        YAMLDropIns.List(key: "recognizers", identity: ["name"], noun: "recognizer"),
        YAMLDropIns.List(key: "devices", identity: ["match"], noun: "device entry"),
        YAMLDropIns.List(key: "actions", identity: ["on", "state", "direction"], noun: "rule"),
        YAMLDropIns.List(
            key: "seeded", identity: ["name"], noun: "seed",
            absent: try! YAMLNode.parse("[{name: a}, {name: b}]")!.inFile("built-in")),
    ]

    static func document(_ text: String, file: String) throws -> YAMLNode {
        try #require(try YAMLNode.parse(text)).inFile(file)
    }

    /// The merged document of `files` (main first), as `key: summary` lines for the test to read.
    static func merged(_ files: [(String, String)]) throws -> YAMLNode {
        var result: YAMLNode?
        for (index, (name, text)) in files.enumerated() {
            let node = try document(text, file: name)
            result = index == 0 ? node : try YAMLDropIns.merge(node, onto: result, lists: lists)
        }
        return try #require(result)
    }

    static func names(_ node: YAMLNode, _ key: String) -> [String] {
        let list = node.mapping?.first { $0.key.scalar?.text == key }?.value.sequence ?? []
        return list.map { entry in
            let name = entry.mapping?.first { $0.key.scalar?.text == "name" }?.value.scalar?.text ?? "?"
            let file = entry.mark.file ?? "-"
            return "\(name)@\(file)"
        }
    }

    static func value(_ node: YAMLNode, _ path: String...) -> String? {
        var node = node
        for key in path {
            guard let next = node.mapping?.first(where: { $0.key.scalar?.text == key })?.value else { return nil }
            node = next
        }
        return node.scalar?.text
    }

    @Test("a drop-in adds a recognizer at the end and replaces one of the same name in place")
    func addAndReplace() throws {
        let merged = try Self.merged([
            ("main.yaml", "recognizers:\n  - name: tap\n    kind: tap\n  - name: pan\n    kind: pan\n"),
            (
                "10-site.yaml",
                "recognizers:\n  - name: pan\n    kind: pan\n    max-fingers: 2\n  - name: swipe\n    kind: swipe\n"
            ),
        ])
        #expect(Self.names(merged, "recognizers") == ["tap@main.yaml", "pan@10-site.yaml", "swipe@10-site.yaml"])
    }

    @Test("drop-ins apply in order: a later one replaces what an earlier one added")
    func order() throws {
        let merged = try Self.merged([
            ("main.yaml", "log-level: info\n"),
            ("10-a.yaml", "log-level: debug\nrecognizers: [{name: x, kind: tap}]\n"),
            ("20-b.yaml", "log-level: warning\nrecognizers: [{name: x, kind: pan}]\n"),
        ])
        #expect(Self.value(merged, "log-level") == "warning")
        #expect(Self.names(merged, "recognizers") == ["x@20-b.yaml"])
    }

    @Test("a mapping is merged key by key; scalars and other lists are replaced")
    func mappings() throws {
        let merged = try Self.merged([
            ("main.yaml", "socket:\n  path: /run/g.sock\n  max-clients: 10\nwebsocket:\n  allowed-origins: [a, b]\n"),
            ("10.yaml", "socket:\n  max-clients: 20\nwebsocket:\n  allowed-origins: [c]\n"),
        ])
        #expect(Self.value(merged, "socket", "path") == "/run/g.sock")
        #expect(Self.value(merged, "socket", "max-clients") == "20")
        let origins = merged.mapping?.first { $0.key.scalar?.text == "websocket" }?.value.mapping?.first?.value
        #expect(origins?.sequence?.map { $0.scalar?.text } == ["c"])
    }

    @Test("remove takes entries out by name, of the file or an earlier drop-in")
    func remove() throws {
        let merged = try Self.merged([
            ("main.yaml", "recognizers: [{name: tap, kind: tap}, {name: pan, kind: pan}]\n"),
            ("10.yaml", "recognizers: [{name: swipe, kind: swipe}]\n"),
            ("20.yaml", "remove:\n  recognizers: [pan, swipe]\n"),
        ])
        #expect(Self.names(merged, "recognizers") == ["tap@main.yaml"])
    }

    @Test("device entries are told apart by their match, rules by their condition")
    func otherIdentities() throws {
        let merged = try Self.merged([
            (
                "main.yaml",
                "devices: [{match: {name: 'ILITEK*'}, rotation: 0}, {match: {usb: '1234:5678'}, rotation: 90}]\n"
                    + "actions: [{on: swipe, direction: up, keys: [a]}, {on: swipe, direction: down, keys: [b]}]\n"
            ),
            (
                "10.yaml",
                "devices: [{match: {name: \"ILITEK*\"}, rotation: 180}]\n"
                    + "actions: [{on: swipe, direction: down, keys: [c]}]\n"
                    + "remove: {actions: [{on: swipe, direction: up}]}\n"
            ),
        ])
        let devices = merged.mapping?.first { $0.key.scalar?.text == "devices" }?.value.sequence ?? []
        #expect(devices.count == 2)
        #expect(Self.value(devices[0], "rotation") == "180")
        let actions = merged.mapping?.first { $0.key.scalar?.text == "actions" }?.value.sequence ?? []
        #expect(actions.count == 1)
        #expect(actions.first?.mark.file == "10.yaml")
    }

    @Test(
        "errors point into the drop-in: its file, line and column",
        arguments: [
            ("remove:\n  recognizers: [pan, nope]\n", "no recognizer 'nope' to remove", 2, 22),
            ("recognizers:\n  - kind: tap\n", "a recognizer in a drop-in needs 'name'", 2, 5),
            ("remove:\n  socket: [path]\n", "cannot remove from 'socket'", 2, 3),
            ("recognizers: {name: x}\n", "expected a list of recognizers", 1, 14),
        ])
    func errors(text: String, says: String, line: Int, column: Int) throws {
        do {
            _ = try Self.merged([("main.yaml", "recognizers: [{name: pan, kind: pan}]\n"), ("50-bad.yaml", text)])
            Issue.record("no error")
        } catch let error as YAMLError {
            #expect(error.message.contains(says), "\(error)")
            #expect(error.mark.file == "50-bad.yaml")
            #expect(error.mark.line == line)
            #expect(error.mark.column == column)
            #expect(
                YAMLFileError(file: "main.yaml", at: error.mark, error.message).description.hasPrefix(
                    "50-bad.yaml:\(line):\(column): "))
        }
    }

    @Test("rules of one condition: a drop-in's replace all of them, where the first was")
    func sameIdentityReplacedTogether() throws {
        let merged = try Self.merged([
            (
                "main.yaml",
                "actions: [{on: tap, keys: [a]}, {on: pan, scroll: {}}, {on: tap, run: [x]}, {on: swipe, keys: [b]}]\n"
            ),
            ("10.yaml", "actions: [{on: tap, keys: [c]}, {on: tap, run: [y]}, {on: hold, keys: [d]}]\n"),
        ])
        let actions = merged.mapping?.first { $0.key.scalar?.text == "actions" }?.value.sequence ?? []
        let summary = actions.map { rule in
            let on = rule.mapping?.first { $0.key.scalar?.text == "on" }?.value.scalar?.text ?? "?"
            return "\(on)@\(rule.mark.file ?? "-")"
        }
        #expect(summary == ["tap@10.yaml", "tap@10.yaml", "pan@main.yaml", "swipe@main.yaml", "hold@10.yaml"])
    }

    @Test("a drop-in's removals come before its additions: removed and added again is replaced at the end")
    func removalsFirst() throws {
        let merged = try Self.merged([
            ("main.yaml", "recognizers: [{name: tap, kind: tap}, {name: pan, kind: pan}]\n"),
            ("10.yaml", "remove: {recognizers: [tap]}\nrecognizers: [{name: tap, kind: tap, taps: 2}]\n"),
        ])
        #expect(Self.names(merged, "recognizers") == ["pan@main.yaml", "tap@10.yaml"])
    }

    @Test("a list the file does not have starts from what it is without the key (the built-in set)")
    func absentList() throws {
        let added = try Self.merged([
            ("main.yaml", "log-level: info\n"), ("10.yaml", "seeded: [{name: c}, {name: a, x: 1}]\n"),
        ])
        #expect(Self.names(added, "seeded") == ["a@10.yaml", "b@built-in", "c@10.yaml"])
        let removed = try Self.merged([("main.yaml", "log-level: info\n"), ("10.yaml", "remove: {seeded: [a]}\n")])
        #expect(Self.names(removed, "seeded") == ["b@built-in"])
        let kept = try Self.merged([("main.yaml", "log-level: info\n"), ("10.yaml", "log-level: debug\n")])
        #expect(kept.mapping?.contains { $0.key.scalar?.text == "seeded" } == false)
    }

    @Test("a mapping inside a mapping is merged key by key, and 'remove' there is an ordinary key")
    func nestedMappings() throws {
        let merged = try Self.merged([
            ("main.yaml", "clients: {grant: {a: 1, b: 2}, remove: x}\n"),
            ("10.yaml", "clients: {grant: {b: 3}, remove: y}\n"),
        ])
        #expect(Self.value(merged, "clients", "grant", "a") == "1")
        #expect(Self.value(merged, "clients", "grant", "b") == "3")
        #expect(Self.value(merged, "clients", "remove") == "y")
    }

    /// The merge's rule over random lists: after a drop-in, the entries of each identity it
    /// names are exactly its entries of that identity, in its order; every other entry of the
    /// file is there, in the file's order, unless the drop-in removed it.
    @Test("property: a drop-in's entries replace theirs, the rest stay in order, the removed go")
    func mergeProperty() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let names = ["a", "b", "c", "d", "e", "f", "g", "h"]
        for _ in 0..<500 {
            let base = names.filter { _ in Bool.random(using: &random) }
            let added = (0..<Int.random(in: 0...6, using: &random)).map { _ in names.randomElement(using: &random)! }
            let removed = base.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
            func list(_ entries: [String], _ tag: String) -> String {
                "[" + entries.enumerated().map { "{name: \($1), from: \(tag)\($0)}" }.joined(separator: ", ") + "]"
            }
            var dropIn = "recognizers: \(list(added, "d"))\n"
            if !removed.isEmpty { dropIn += "remove: {recognizers: [\(removed.joined(separator: ", "))]}\n" }
            let merged = try Self.merged([("main.yaml", "recognizers: \(list(base, "f"))\n"), ("10.yaml", dropIn)])
            let result = (merged.mapping?.first { $0.key.scalar?.text == "recognizers" }?.value.sequence ?? []).map {
                entry in
                (Self.value(entry, "name") ?? "?", Self.value(entry, "from") ?? "?")
            }
            let context = "seed \(seed): base \(base), added \(added), removed \(removed) → \(result)"
            for name in Set(added) {
                let expected = added.enumerated().filter { $0.element == name }.map { "d\($0.offset)" }
                #expect(result.filter { $0.0 == name }.map(\.1) == expected, "\(context)")
            }
            let others = result.filter { !added.contains($0.0) }
            let expected = base.enumerated().filter { !added.contains($0.element) && !removed.contains($0.element) }
            #expect(others.map(\.0) == expected.map(\.element), "\(context)")
            #expect(others.map(\.1) == expected.map { "f\($0.offset)" }, "\(context)")
        }
    }

    // MARK: - Files

    static func directory(_ files: [String: String]) throws -> String {
        var template = Array("/tmp/gdropins.XXXXXX".utf8CString)
        let made = try #require(mkdtemp(&template))
        let directory = String(cString: made)
        for (name, text) in files {
            let path = directory + "/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: false, encoding: .utf8)
        }
        return directory
    }

    static func read(_ file: String) throws(YAMLFileError) -> YAMLFileSet {
        try YAMLFileSet.read(file, limit: 1 << 20, kind: "a test file", expecting: "expected a mapping", lists: lists)
    }

    @Test("the drop-ins are FILE.d/*.yaml in the order of their names; hidden and other files are not read")
    func dropInFiles() throws {
        let directory = try Self.directory([
            "main.yaml": "recognizers: [{name: tap, kind: tap}]\n",
            "main.yaml.d/20-b.yaml": "log-level: warning\n",
            "main.yaml.d/10-a.yaml": "log-level: debug\nrecognizers: [{name: pan, kind: pan}]\n",
            "main.yaml.d/B.yaml": "# only a comment\n",
            "main.yaml.d/.30-hidden.yaml": "log-level: trace\n",
            "main.yaml.d/40-c.yaml.dpkg-old": "log-level: trace\n",
            "main.yaml.d/README": "not YAML: [",
        ])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let set = try Self.read(directory + "/main.yaml")
        let dropIns = directory + "/main.yaml.d/"
        #expect(set.dropIns == [dropIns + "10-a.yaml", dropIns + "20-b.yaml", dropIns + "B.yaml"])
        #expect(set.files == [directory + "/main.yaml"] + set.dropIns)
        let root = try #require(set.root)
        #expect(Self.value(root, "log-level") == "warning")
        #expect(Self.names(root, "recognizers") == ["tap@-", "pan@\(dropIns)10-a.yaml"])
        // No directory: no drop-ins.
        let alone = try Self.read(directory + "/main.yaml.d/20-b.yaml")
        #expect(alone.dropIns.isEmpty)
    }

    @Test("a drop-in's error names the drop-in; too many drop-ins, or too many bytes together, are refused")
    func fileErrors() throws {
        let directory = try Self.directory([
            "main.yaml": "log-level: info\n",
            "main.yaml.d/10.yaml": "log-level: debug\n",
            "main.yaml.d/20.yaml": "recognizers:\n  - kind: tap\n",
        ])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/main.yaml"
        #expect(
            throws: YAMLFileError(
                file: file + ".d/20.yaml", line: 2, column: 5,
                message: "a recognizer in a drop-in needs 'name': entries are added, replaced and removed by it")
        ) { try Self.read(file) }
        try "- a list\n".write(toFile: file + ".d/20.yaml", atomically: false, encoding: .utf8)
        #expect(throws: YAMLFileError(file: file + ".d/20.yaml", line: 1, column: 1, message: "expected a mapping")) {
            try Self.read(file)
        }
        try "log-level: [\n".write(toFile: file + ".d/20.yaml", atomically: false, encoding: .utf8)
        #expect(throws: YAMLFileError.self) { try Self.read(file) }
        do {
            _ = try Self.read(file)
        } catch {
            #expect(error.file == file + ".d/20.yaml", "\(error)")
        }
        try FileManager.default.removeItem(atPath: file + ".d/20.yaml")
        for n in 0..<YAMLDropIns.maximumCount {
            try "log-level: info\n".write(toFile: file + ".d/x\(n).yaml", atomically: false, encoding: .utf8)
        }
        #expect(
            throws: YAMLFileError(
                file: file + ".d", line: 1, column: 1,
                message:
                    "the directory has \(YAMLDropIns.maximumCount + 1) drop-ins: a file takes at most \(YAMLDropIns.maximumCount)"
            )
        ) { try Self.read(file) }
        for n in 0..<YAMLDropIns.maximumCount { try FileManager.default.removeItem(atPath: file + ".d/x\(n).yaml") }
        // The file and three drop-ins of 1 MiB each fit; a fourth is refused, at it.
        let big = "log-level: info\n" + "#" + String(repeating: "x", count: (1 << 20) - 18) + "\n"
        #expect(big.utf8.count == 1 << 20)
        for n in 1...4 { try big.write(toFile: file + ".d/big\(n).yaml", atomically: false, encoding: .utf8) }
        do {
            _ = try Self.read(file)
            Issue.record("four drop-ins of 1 MiB and the file were read")
        } catch {
            #expect(error.file == file + ".d/big4.yaml" && error.line == 1 && error.column == 1, "\(error)")
            #expect(error.message.contains("together they are at most 4 MiB"), "\(error)")
        }
        try FileManager.default.removeItem(atPath: file + ".d/big4.yaml")
        let fitting = try Self.read(file)
        #expect(fitting.dropIns.count == 4)
    }

    @Test("a drop-in directory that cannot be read, or a drop-in that is not a file, is an error at it")
    func unreadable() throws {
        let directory = try Self.directory(["main.yaml": "log-level: info\n", "main.yaml.d": "not a directory\n"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/main.yaml"
        #expect(
            throws: YAMLFileError(
                file: file + ".d", line: 1, column: 1, message: "cannot read the drop-in directory: Not a directory")
        ) { try Self.read(file) }
        try FileManager.default.removeItem(atPath: file + ".d")
        try FileManager.default.createDirectory(atPath: file + ".d/10.yaml", withIntermediateDirectories: true)
        #expect(
            throws: YAMLFileError(
                file: file + ".d/10.yaml", line: 1, column: 1, message: "cannot read the file: Is a directory")
        ) { try Self.read(file) }
    }

    @Test("a merged document emitted reads back the same, tags included")
    func emittedRoundTrip() throws {
        let text = "a: !!str 0660\nb: !!int '5'\nc: '0660'\nd: [1, 'x y', ~]\ne: {f: !!float 1}\n"
        let node = try #require(try YAMLNode.parse(text))
        let emitted = try node.emitted()
        let again = try #require(try YAMLNode.parse(emitted))
        func scalars(_ node: YAMLNode) -> [String] {
            switch node.content {
            case .scalar(let s): ["\(s.text)|\(s.tag.map { "\($0)" } ?? (s.style == .plain ? "plain" : "quoted"))"]
            case .sequence(let items): items.flatMap(scalars)
            case .mapping(let pairs): pairs.flatMap { scalars($0.key) + scalars($0.value) }
            }
        }
        #expect(scalars(again) == scalars(node), "\(emitted)")
        #expect(scalars(node).contains("5|int"))
    }
}
