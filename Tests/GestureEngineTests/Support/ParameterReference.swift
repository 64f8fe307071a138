@testable import GestureEngine

/// The kind keys' reference table of docs/CONFIGURATION.md, rendered from the descriptors.
enum ParameterReference {
    static func markdown() -> String {
        var lines = [
            "| kind | key | unit | default | accepts | meaning |",
            "|---|---|---|---|---|---|",
        ]
        for kind in GestureKind.allCases {
            switch kind {
            case .tap: lines += rows(kind, TapParameters.self)
            case .longPress: lines += rows(kind, LongPressParameters.self)
            case .pan: lines += rows(kind, PanParameters.self)
            case .swipe: lines += rows(kind, SwipeParameters.self)
            case .edgeSwipe: lines += rows(kind, EdgeSwipeParameters.self)
            case .pinch: lines += rows(kind, PinchParameters.self)
            case .rotate: lines += rows(kind, RotateParameters.self)
            case .shape: lines += rows(kind, ShapeParameters.self)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func rows<P: DescribedParameters>(_ kind: GestureKind, _: P.Type) -> [String] {
        let defaults = P()
        return P.descriptors.enumerated().map { i, d in
            let name = i == 0 ? "`\(kind.rawValue)`" : ""
            return "| \(name) | `\(d.key)` | \(d.unit) | \(d.defaultText(defaults)) | \(d.accepts) | \(d.meaning) |"
        }
    }
}
