import Foundation
import Testing

/// A block of a document that a test measures: the text between two marker lines must be what
/// the test computed. With `GESTURED_UPDATE_DOCS=1` in the environment the test writes it there
/// instead (scripts/stroke-tables.sh).
struct GeneratedDocBlock {
    /// Relative to the repository's root.
    var document: String
    /// The marker's name: the block runs from `<!-- NAME: … -->` to `<!-- end of NAME -->`.
    var name: String

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Records an issue when the block differs from `content` (or rewrites it, when asked to).
    func check(_ content: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = Self.root.appendingPathComponent(document)
        let text = try String(contentsOf: url, encoding: .utf8)
        let begin = "<!-- \(name): "
        let end = "<!-- end of \(name) -->"
        guard let marker = text.range(of: begin), let close = text[marker.upperBound...].range(of: "-->"),
            let stop = text.range(of: end)
        else {
            Issue.record("\(document) has no block from '\(begin)…-->' to '\(end)'", sourceLocation: sourceLocation)
            return
        }
        let start = close.upperBound
        let current = String(text[start..<stop.lowerBound])
        let wanted = "\n" + content
        guard current != wanted else { return }
        if ProcessInfo.processInfo.environment["GESTURED_UPDATE_DOCS"] == "1" {
            try (String(text[..<start]) + wanted + String(text[stop.lowerBound...]))
                .write(to: url, atomically: true, encoding: .utf8)
            return
        }
        Issue.record(
            "\(document)'s block '\(name)' differs from what was measured; scripts/stroke-tables.sh rewrites it:\n\(content)",
            sourceLocation: sourceLocation)
    }
}
