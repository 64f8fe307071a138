import Testing
import YAMLCoding

/// libyaml's syntax errors in words a kiosk integrator acts on: what is wrong, judged from the
/// lines around it, and what to write instead; libyaml's words after, its position unchanged.
/// (Before, each was libyaml's sentence alone: `did not find expected '-' indicator`.)
@Suite struct YAMLSyntaxAdviceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var text: String
        var line: Int
        var column: Int
        var says: [String]
        var testDescription: String { says[0] }
    }

    @Test(
        "each syntax error says what is wrong and what to do",
        arguments: [
            // A key between the list's '-' and its siblings' column.
            Case(
                text: "recognizers:\n  - name: tap\n    kind: tap\n   taps: 2\n", line: 4, column: 4,
                says: [
                    "line 4 starts at column 4, in line with none of the lines above it",
                    "column 5 (line 3), 3 (line 2, a '-' item), 1 (line 1)", "indent it with spaces",
                    "(libyaml: did not find expected '-' indicator)",
                ]),
            // A key left of its siblings.
            Case(
                text: "socket:\n    path: x\n  mode: y\n", line: 3, column: 3,
                says: [
                    "line 3 starts at column 3", "column 5 (line 2), 1 (line 1)",
                    "(libyaml: did not find expected key)",
                ]),
            // A key right of its sibling: read as the value's continuation.
            Case(
                text: "socket:\n  path: x\n   mode: y\n", line: 3, column: 8,
                says: ["line 3 starts at column 4, to the right of line 2 (column 3)", "indent it with 2 spaces"]),
            Case(
                text: "socket:\n  path x\n  mode: y\n", line: 3, column: 7,
                says: ["line 2 (path x) has no ':' after its key", "write key: value"]),
            Case(
                text: "socket:\n  path: a: b\n", line: 2, column: 10,
                says: ["a second ': ' on line 2", "path: \"a: b\""]),
            Case(
                text: "socket:\n  path: x\n  - mode: y\n", line: 3, column: 3,
                says: ["a '-' list item among the keys of a mapping (line 2 starts in the same column)"]),
            Case(
                text: "recognizers:\n  - name: tap\n\tkind: tap\n", line: 3, column: 1,
                says: ["a tab character at column 1: YAML indents with spaces only", "replace the tab with spaces"]),
            Case(
                text: "socket:\n\tpath: x\n", line: 2, column: 1,
                says: ["a tab character at column 1", "(libyaml: found character that cannot start any token)"]),
            Case(
                text: "socket:\n  path: \"x\n  mode: y\n", line: 4, column: 1,
                says: ["the quoted value that starts at line 2, column 9 is never closed"]),
            Case(
                text: "a: @b\n", line: 1, column: 4,
                says: ["'@' cannot start a value written without quotes: quote the value"]),
        ])
    func advice(_ example: Case) throws {
        let error = try #require(parse(example.text))
        #expect(error.mark == YAMLMark(line: example.line, column: example.column), "\(error.message)")
        for phrase in example.says {
            #expect(error.message.contains(phrase), "\(error.message)")
        }
    }

    private func parse(_ text: String) -> YAMLError? {
        do {
            _ = try YAMLNode.parse(text)
            return nil
        } catch {
            return error
        }
    }
}
