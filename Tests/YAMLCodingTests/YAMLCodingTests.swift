import TestSupport
import Testing
@testable import YAMLCoding

private func parse(_ text: String) throws(YAMLError) -> YAMLNode {
    guard let node = try YAMLNode.parse(text) else { throw YAMLError("no document", at: YAMLMark(line: 0, column: 0)) }
    return node
}

private func value(_ node: YAMLNode, _ key: String) -> YAMLNode? {
    node.mapping?.first { $0.key.scalar?.text == key }?.value
}

private func parseError(_ text: String) -> YAMLError? {
    do {
        _ = try YAMLNode.parse(text)
        return nil
    } catch {
        return error
    }
}

@Suite("YAML scalars: what a scalar can be read as (YAML 1.1, as libyaml and Yams read it)")
struct YAMLScalarTests {
    @Test(
        "integers",
        arguments: [
            ("12", 12), ("-3", -3), ("+7", 7), ("0", 0), ("1_000", 1000), ("0x1f", 31), ("0o17", 15), ("017", 15),
            ("0b101", 5), ("-0x10", -16),
        ])
    func integers(text: String, expected: Int) {
        #expect(YAMLScalar(text).integer(Int.self) == expected)
    }

    @Test("not integers", arguments: ["1.5", "1e3", "two", "", "0x", "1:30", "- 1", "99999999999999999999"])
    func notIntegers(text: String) {
        #expect(YAMLScalar(text).integer(Int.self) == nil)
    }

    @Test("quoted numbers are strings; a tag makes them numbers again")
    func quotedNumbers() {
        #expect(YAMLScalar("12", style: .doubleQuoted).integer(Int.self) == nil)
        #expect(YAMLScalar("12", style: .singleQuoted).double == nil)
        #expect(YAMLScalar("12", style: .doubleQuoted, tag: .int).integer(Int.self) == 12)
        #expect(YAMLScalar("12", tag: .str).integer(Int.self) == nil)
    }

    @Test("numbers", arguments: [("3", 3.0), ("3.5", 3.5), (".5", 0.5), ("1e3", 1000), ("-2.5e-1", -0.25), ("1_0.5", 10.5)])
    func numbers(text: String, expected: Double) {
        #expect(YAMLScalar(text).double == expected)
    }

    @Test("infinities and not-a-number")
    func specialNumbers() {
        #expect(YAMLScalar(".inf").double == .infinity)
        #expect(YAMLScalar("-.Inf").double == -.infinity)
        #expect(YAMLScalar(".NaN").double?.isNaN == true)
    }

    @Test("booleans in every spelling YAML 1.1 allows", arguments: ["true", "True", "TRUE", "yes", "Yes", "on", "ON"])
    func trues(text: String) {
        #expect(YAMLScalar(text).bool == true)
        #expect(YAMLScalar(text.replacingFirst()).bool == false)
    }

    @Test("nulls: nothing, ~ and null, unquoted")
    func nulls() {
        for text in ["", "~", "null", "Null", "NULL"] { #expect(YAMLScalar(text).isNull, "\(text)") }
        #expect(!YAMLScalar("null", style: .singleQuoted).isNull)
        #expect(!YAMLScalar("", style: .doubleQuoted).isNull)
        #expect(!YAMLScalar("nil").isNull)
        #expect(YAMLScalar("x", tag: .null).isNull)
    }
}

extension String {
    /// `true` → `false`, `yes` → `no`, `on` → `off`, keeping the letter case of the first letter.
    fileprivate func replacingFirst() -> String {
        let map = ["true": "false", "yes": "no", "on": "off"]
        let word = map[lowercased()]!
        if self == uppercased() { return word.uppercased() }
        return first!.isUppercase ? word.prefix(1).uppercased() + word.dropFirst() : word
    }
}

@Suite("YAML documents: composing libyaml's events into nodes")
struct YAMLComposeTests {
    @Test("marks are 1-based lines and characters")
    func marks() throws {
        let root = try parse("a: 1\nbé:\n  - x\n  - {c: \"ü\", d: 2}\n")
        #expect(root.mark == YAMLMark(line: 1, column: 1))
        let list = try #require(value(root, "bé"))
        #expect(list.mark == YAMLMark(line: 3, column: 3))
        let flow = try #require(list.sequence?[1])
        #expect(flow.mark == YAMLMark(line: 4, column: 5))
        #expect(value(flow, "d")?.mark == YAMLMark(line: 4, column: 17))
    }

    @Test("block, flow, quoted, literal and folded scalars, comments, document markers")
    func styles() throws {
        let root = try parse(
            """
            --- # a comment
            plain: hello world   # trailing comment
            single: 'it''s'
            double: "tab\\there"
            literal: |
              line one
              line two
            folded: >-
              one
              two
            flow: {a: [1, 2], b: c}
            ...
            """)
        #expect(value(root, "plain")?.scalar == YAMLScalar("hello world"))
        #expect(value(root, "single")?.scalar?.text == "it's")
        #expect(value(root, "double")?.scalar?.text == "tab\there")
        #expect(value(root, "literal")?.scalar?.text == "line one\nline two\n")
        #expect(value(root, "folded")?.scalar?.text == "one two")
        #expect(value(root, "flow").flatMap { value($0, "a") }?.sequence?.count == 2)
    }

    @Test("an alias is its anchor's node; merge keys copy what the mapping does not set")
    func aliasesAndMerges() throws {
        let root = try parse(
            """
            base: &base {kind: tap, taps: 1, fingers: 1}
            more: &more {slop: 3}
            double:
              <<: [*base, *more]
              taps: 2
            again: *base
            """)
        let double = try #require(value(root, "double"))
        #expect(value(double, "taps")?.scalar?.text == "2")
        #expect(value(double, "kind")?.scalar?.text == "tap")
        #expect(value(double, "slop")?.scalar?.text == "3")
        #expect(value(double, "<<") == nil)
        #expect(value(root, "again")?.mapping?.count == 3)
        // The alias's node is where the alias is written; what is inside keeps the anchor's marks.
        #expect(value(root, "again")?.mark == YAMLMark(line: 6, column: 8))
        #expect(value(root, "again").flatMap { value($0, "taps") }?.mark == YAMLMark(line: 1, column: 31))
    }

    @Test("an empty stream holds no document")
    func empty() throws {
        #expect(try YAMLNode.parse("") == nil)
        #expect(try YAMLNode.parse("# only a comment\n") == nil)
    }

    /// Found by ConfigurationFuzzTests: libyaml puts the empty value of a document of comments,
    /// in a file without a last line break, on a line after the last, and the configuration's
    /// "expected a mapping" error pointed there (line 4 of 3).
    @Test("the empty value of a document of comments is within the file")
    func emptyDocumentAtTheEnd() throws {
        let root = try #require(try YAMLNode.parse("---\n# ---\n# a comment"))
        #expect(root.mark == YAMLMark(line: 3, column: 12))
    }

    struct Broken: Sendable, CustomTestStringConvertible {
        var text: String
        var line: Int
        var column: Int
        var says: String
        var testDescription: String { says }
    }

    @Test(
        "broken documents are refused where the problem is",
        arguments: [
            Broken(
                text: "a: [1, 2\nb: 3\n", line: 2, column: 2,
                says: "the list that '[' opens at line 1, column 4 is not closed here: its items need ',' between "
                    + "them and ']' after the last (libyaml: did not find expected ',' or ']')"),
            Broken(
                text: "a: 1\n\tb: 2\n", line: 2, column: 1,
                says: "a tab character at column 1: YAML indents with spaces only; replace the tab with spaces, so "
                    + "that the line starts in the same column as the lines it belongs with (libyaml: found a tab "
                    + "character that violates indentation)"),
            Broken(text: "a: 1\na: 2\n", line: 2, column: 1, says: "duplicate key 'a' in this mapping"),
            Broken(text: "m: {a: 1, a: 2}\n", line: 1, column: 11, says: "duplicate key 'a' in this mapping"),
            Broken(text: "a: *nope\n", line: 1, column: 4, says: "unknown alias '*nope' (no anchor '&nope' before it)"),
            Broken(text: "a: &x [*x]\n", line: 1, column: 8, says: "unknown alias '*x' (no anchor '&x' before it)"),
            Broken(text: "a: 1\n---\nb: 2\n", line: 2, column: 1, says: "a second YAML document; the file must hold one"),
            Broken(text: "a: !!binary aGk=\n", line: 1, column: 4, says: "unsupported tag 'tag:yaml.org,2002:binary'"),
            Broken(text: "a: !local x\n", line: 1, column: 4, says: "unsupported tag '!local'"),
            Broken(text: "a: !!map [1]\n", line: 1, column: 4, says: "unsupported tag 'tag:yaml.org,2002:map'"),
            Broken(
                text: "b: &b {x: 1}\nm:\n  <<: 5\n", line: 3, column: 3,
                says: "a merge key '<<' takes a mapping or a list of mappings, found '5'"),
            Broken(text: "a: \"x\u{1}\"\n", line: 1, column: 6, says: "control characters are not allowed"),
        ])
    func broken(_ example: Broken) {
        let error = parseError(example.text)
        #expect(error == YAMLError(example.says, at: YAMLMark(line: example.line, column: example.column)))
    }

    @Test("nesting deeper than the limit is refused, not recursed into")
    func deepNesting() {
        let depth = 100_000
        let error = parseError(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        #expect(error?.message == "nested more than \(YAMLComposer.maxDepth) levels deep")
        #expect(parseError(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)) == nil)
    }

    @Test("aliases cannot multiply a document beyond the limit (billion laughs)")
    func aliasBomb() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            let previous = "*a\(level - 1)"
            text += "a\(level): &a\(level) [\(Array(repeating: previous, count: 10).joined(separator: ", "))]\n"
        }
        let error = parseError(text)
        #expect(error?.message.hasPrefix("aliases expand to more than") == true, "\(String(describing: error))")
        // Using a small anchor many times is fine.
        let modest = "a: &a [1, 2, 3]\nb: [" + Array(repeating: "*a", count: 1000).joined(separator: ", ") + "]\n"
        #expect(parseError(modest) == nil)
    }
}

/// Every type the decoder reads directly, and containers of all three kinds.
struct Sample: Codable, Equatable {
    enum Color: String, Codable, CaseIterable { case red, green }

    var name: String
    var count: Int
    var small: UInt16
    var ratio: Double
    var single: Float
    var flag: Bool
    var color: Color
    var tags: [String]
    var matrix: [[Double]]
    var nested: [String: Int]
    var optional: String?
}

@Suite("YAML Codable: decoding and encoding through the node tree")
struct YAMLCodableTests {
    static let sample = Sample(
        name: "0660", count: -3, small: 7, ratio: 0.1, single: 2.5, flag: true, color: .green,
        tags: ["*", "yes", "null", "", " padded ", "a: b", "multi\nline", "ü"], matrix: [[1, 2], [], [.infinity]],
        nested: ["k": 1], optional: nil)

    @Test("a value encoded, emitted, parsed and decoded is the same value")
    func roundTrip() throws {
        let text = try YAMLEncoder().encode(Self.sample).emitted()
        let decoded = try YAMLDecoder().decode(Sample.self, from: parse(text))
        #expect(decoded == Self.sample, "\(text)")
    }

    @Test("strings that would read as something else are quoted; numbers are written plainly")
    func quoting() throws {
        let text = try YAMLEncoder().encode(Self.sample).emitted()
        #expect(text.contains("name: '0660'\n"))
        #expect(text.contains("- '*'\n"))
        #expect(text.contains("- 'yes'\n"))
        #expect(text.contains("ratio: 0.1\n"))
        #expect(text.contains("- .inf\n"))
        #expect(text.contains("color: green\n"))
    }

    @Test("random strings survive the round trip")
    func randomStrings() throws {
        var rng = SplitMix64(seed: 0x7961_6d6c)
        let alphabet = Array("ab01 :#-'\"\\\n\t{}[],&*!|>%@`?~.eE+_é\u{7f}\u{85}\u{2028}")
        for _ in 0..<2000 {
            let length = Int(rng.next() % 12)
            let text = String((0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            let yaml = try YAMLEncoder().encode(["s": text]).emitted()
            #expect(try YAMLDecoder().decode([String: String].self, from: parse(yaml)) == ["s": text], "\(yaml)")
        }
    }

    struct Wrong: Sendable, CustomTestStringConvertible {
        var yaml: String
        var message: String
        var line: Int
        var column: Int
        var testDescription: String { message }
    }

    @Test(
        "a value of the wrong shape says what was expected and what was found, where",
        arguments: [
            Wrong(yaml: "count: two", message: "expected an integer, found 'two'", line: 1, column: 8),
            Wrong(yaml: "count: '2'", message: "expected an integer, found '2'", line: 1, column: 8),
            Wrong(yaml: "count:", message: "expected an integer, found nothing", line: 1, column: 7),
            Wrong(yaml: "small: 70000", message: "expected an integer, found '70000'", line: 1, column: 8),
            Wrong(yaml: "ratio: [1]", message: "expected a number, found a list", line: 1, column: 8),
            Wrong(yaml: "flag: maybe", message: "expected true or false, found 'maybe'", line: 1, column: 7),
            Wrong(yaml: "name: {a: 1}", message: "expected a string, found a mapping", line: 1, column: 7),
            Wrong(yaml: "tags: a", message: "expected a list, found 'a'", line: 1, column: 7),
            Wrong(yaml: "nested: [1]", message: "expected a mapping, found a list", line: 1, column: 9),
            Wrong(yaml: "color: [red]", message: "expected a string, found a list", line: 1, column: 8),
            Wrong(yaml: "nested: {[a]: 1}", message: "expected a key that is a string, found a list", line: 1, column: 10),
        ])
    func wrongShape(_ example: Wrong) throws {
        // The other keys are valid, so the error is the one under test.
        var fields = [
            "name": "n", "count": "1", "small": "1", "ratio": "1", "single": "1", "flag": "true", "color": "red",
            "tags": "[]", "matrix": "[]", "nested": "{}",
        ]
        let key = String(example.yaml.prefix { $0 != ":" })
        fields[key] = nil
        let text = example.yaml + "\n" + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
        do {
            let decoded = try YAMLDecoder().decode(Sample.self, from: parse(text))
            Issue.record("accepted: \(decoded)")
        } catch let error as DecodingError {
            let context: DecodingError.Context? =
                switch error {
                case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c), .keyNotFound(_, let c): c
                @unknown default: nil
                }
            let yaml = try #require(context?.underlyingError as? YAMLError)
            #expect(yaml == YAMLError(example.message, at: YAMLMark(line: example.line, column: example.column)))
        }
    }

    @Test("a missing key is reported at its mapping")
    func missingKey() throws {
        do {
            _ = try YAMLDecoder().decode(Sample.self, from: parse("x: 1\n"))
            Issue.record("accepted")
        } catch DecodingError.keyNotFound(let key, let context) {
            #expect(key.stringValue == "name")
            #expect(context.underlyingError as? YAMLError == YAMLError("missing key 'name'", at: YAMLMark(line: 1, column: 1)))
        }
    }
}
