/// libyaml's syntax errors in words a kiosk integrator can act on: what is wrong, judged from the
/// lines around the error (indentation against the siblings', a tab, an unclosed quote or
/// bracket, a value holding ': '), and what to write instead. libyaml's own words follow in
/// parentheses, for a search. The position is libyaml's, unchanged.
enum YAMLSyntaxAdvice {
    /// The message for libyaml's `problem` at `mark` in `text`; `context` and `contextMark` are
    /// libyaml's (the construct it was reading and where that began).
    static func message(
        problem: String, at mark: YAMLMark, context: String?, contextMark: YAMLMark?, text: String
    ) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            Array(($0.hasSuffix("\r") ? $0.dropLast() : $0).unicodeScalars)
        }
        let libyaml = " (libyaml: \(problem))"
        guard lines.indices.contains(mark.line - 1) else { return "YAML syntax: \(problem)" }
        let line = lines[mark.line - 1]
        let atMark = line.indices.contains(mark.column - 1) ? line[mark.column - 1] : nil

        if let tab = tabColumn(line, mark: mark) {
            return "a tab character at column \(tab): YAML indents with spaces only; replace the tab with spaces, "
                + "so that the line starts in the same column as the lines it belongs with" + libyaml
        }
        if problem == "found unexpected end of stream", context?.contains("quoted scalar") == true,
            let start = contextMark
        {
            return "the quoted value that starts at line \(start.line), column \(start.column) is never closed: "
                + "end it with the same quote mark it starts with" + libyaml
        }
        if problem.hasPrefix("did not find expected ',' or"), let start = contextMark {
            let (what, open, close) = problem.hasSuffix("']'") ? ("list", "[", "]") : ("mapping", "{", "}")
            return "the \(what) that '\(open)' opens at line \(start.line), column \(start.column) is not closed here: "
                + "its items need ',' between them and '\(close)' after the last" + libyaml
        }
        let column = indentation(line) + 1
        let above = enclosing(lines, before: mark.line)
        switch problem {
        case "mapping values are not allowed in this context":
            let before = line.prefix(mark.column - 1)
            if let keyEnd = colonSpace(before) {
                let key = string(line[indentation(line)..<keyEnd]).droppingPrefix("- ")
                let value = string(line[(keyEnd + 2)...])
                return "a second ': ' on line \(mark.line): a value that holds ': ' must be quoted, as in "
                    + "\(key): \"\(value)\"" + libyaml
            }
            guard let previous = above.first else { break }
            let previousText = lines[previous.line - 1]
            if colonSpace(previousText[...]) == nil && previousText.last != ":" && !previous.isItem {
                let shown = string(previousText).droppingPrefix(" ")
                return "line \(previous.line) (\(shown)) has no ':' after its key, so YAML reads "
                    + "on into line \(mark.line) as one long key: write key: value" + libyaml
            }
            if column > previous.column {
                return "line \(mark.line) starts at column \(column), to the right of line \(previous.line) (column "
                    + "\(previous.column)), so YAML reads it as more of line \(previous.line)'s value: keys of one "
                    + "mapping start in the same column; indent it with \(previous.column - 1) spaces" + libyaml
            }
        case "did not find expected key", "did not find expected '-' indicator",
            "block sequence entries are not allowed in this context":
            if line[(column - 1)...].starts(with: Array("- ".unicodeScalars)), let sibling = above.first,
                sibling.column == column, !sibling.isItem
            {
                return "a '-' list item among the keys of a mapping (line \(sibling.line) starts in the same column): "
                    + "a list is a key's value, written under `key:` and indented further" + libyaml
            }
            guard !above.isEmpty else { break }
            let columns = above.map { "\($0.column) (line \($0.line)\($0.isItem ? ", a '-' item" : ""))" }
            return "line \(mark.line) starts at column \(column), in line with none of the lines above it, which start "
                + "at column \(columns.joined(separator: ", ")): the keys of one mapping, and the '-' items of "
                + "one list, start in the same column; indent it with spaces to match the lines it belongs with"
                + libyaml
        case "found character that cannot start any token":
            if let character = atMark {
                return "'\(Character(character))' cannot start a value written without quotes: quote the value "
                    + "(\"…\" or '…')" + libyaml
            }
        default:
            break
        }
        return "YAML syntax: \(problem)"
            + (context.map { c in
                " (\(c)" + (contextMark.map { " from line \($0.line), column \($0.column)" } ?? "") + ")"
            } ?? "")
    }

    /// A line above the error and where its content starts: what the error's line could line up with.
    struct Start {
        var line: Int
        var column: Int
        /// The line is a list item (`- …`) and `column` is its '-'.
        var isItem: Bool
    }

    /// The lines above `line` that open the blocks it may belong to, nearest first: walking up,
    /// each content line (not blank, not only a comment) that starts left of every one after it,
    /// and for a `- key: value` line, its key as well as its '-'.
    static func enclosing(_ lines: [[Unicode.Scalar]], before line: Int) -> [Start] {
        var starts: [Start] = []
        var leftmost = Int.max
        for index in stride(from: line - 2, through: 0, by: -1) {
            let text = lines[index]
            let indent = indentation(text)
            guard indent < text.count, text[indent] != "#" else { continue }
            var content = indent
            if text[indent] == "-", indent + 1 < text.count, text[indent + 1] == " " {
                content = indent + 1 + indentation(Array(text[(indent + 1)...]))
                if content + 1 < leftmost, content < text.count {
                    starts.append(Start(line: index + 1, column: content + 1, isItem: false))
                    leftmost = content + 1
                }
                if indent + 1 < leftmost {
                    starts.append(Start(line: index + 1, column: indent + 1, isItem: true))
                    leftmost = indent + 1
                }
            } else if indent + 1 < leftmost {
                starts.append(Start(line: index + 1, column: indent + 1, isItem: false))
                leftmost = indent + 1
            }
            if leftmost == 1 { break }
        }
        return starts
    }

    /// How many spaces start the line.
    static func indentation(_ line: [Unicode.Scalar]) -> Int {
        line.prefix { $0 == " " }.count
    }

    /// The 1-based column of the tab that is the problem: one at the error, or in the line's
    /// indentation.
    static func tabColumn(_ line: [Unicode.Scalar], mark: YAMLMark) -> Int? {
        if line.indices.contains(mark.column - 1), line[mark.column - 1] == "\t" { return mark.column }
        let leading = line.prefix { $0 == " " || $0 == "\t" || $0 == "-" }
        return leading.firstIndex(of: "\t").map { $0 + 1 }
    }

    /// Where the first `: ` outside quotes is in `text`, nil when there is none.
    static func colonSpace(_ text: ArraySlice<Unicode.Scalar>) -> Int? {
        var quote: Unicode.Scalar?
        for i in text.indices {
            let c = text[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "#" && (i == text.startIndex || text[i - 1] == " ") {
                return nil
            } else if c == ":" && i + 1 < text.endIndex && text[i + 1] == " " {
                return i
            }
        }
        return nil
    }

    static func string(_ scalars: some Sequence<Unicode.Scalar>) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }
}

extension String {
    fileprivate func droppingPrefix(_ prefix: String) -> String {
        var text = Substring(self)
        while text.hasPrefix(prefix) { text = text.dropFirst(prefix.count) }
        return String(text)
    }
}
