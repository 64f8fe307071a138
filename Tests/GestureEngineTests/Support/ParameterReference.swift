@testable import GestureEngine

/// The kind keys' reference table of docs/CONFIGURATION.md, rendered from the descriptors.
enum ParameterReference {
    static func markdown() -> String {
        var lines = [
            "| kind | key | unit | default | accepts | meaning |",
            "|---|---|---|---|---|---|",
        ]
        for kind in GestureKind.allCases {
            lines += kind.visit(Rows(kind: kind))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    struct Rows: KindVisitor {
        let kind: GestureKind

        func visit<Kind: KindDefinition>(_: Kind.Type) -> [String] {
            let defaults = Kind.Parameters()
            return Kind.Parameters.descriptors.enumerated().map { i, d in
                let name = i == 0 ? "`\(kind.rawValue)`" : ""
                return "| \(name) | `\(d.key)` | \(d.unit) | \(d.defaultText(defaults)) | \(d.accepts) | \(d.meaning) |"
            }
        }
    }
}
