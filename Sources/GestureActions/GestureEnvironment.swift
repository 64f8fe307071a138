import GestureEngine
import GestureProtocol

/// The environment variables a command gets for the gesture that started it (docs/ACTIONS.md).
/// A field the report does not have (a tap's direction) is not set.
public enum GestureEnvironment {
    /// `GESTURED_NAME`, `GESTURED_KIND`, `GESTURED_STATE`, `GESTURED_FINGERS`, `GESTURED_X`…
    public static func variables(_ g: GestureMessage) -> [String: String] {
        var v: [String: String] = [
            "GESTURED_NAME": g.name,
            "GESTURED_KIND": g.kind.rawValue,
            "GESTURED_STATE": g.state.rawValue,
            "GESTURED_FINGERS": String(g.fingers),
            "GESTURED_DEVICE": g.device,
            "GESTURED_REGION": g.region,
            "GESTURED_SEQ": String(g.seq),
            "GESTURED_TIME_US": String(g.time.microseconds),
            "GESTURED_X": number(g.position.x),
            "GESTURED_Y": number(g.position.y),
            "GESTURED_TRANSLATION_X": number(g.translation.dx),
            "GESTURED_TRANSLATION_Y": number(g.translation.dy),
        ]
        if let p = g.positionMM {
            v["GESTURED_X_MM"] = number(p.x.value)
            v["GESTURED_Y_MM"] = number(p.y.value)
        }
        if let t = g.translationMM {
            v["GESTURED_TRANSLATION_X_MM"] = number(t.dx.value)
            v["GESTURED_TRANSLATION_Y_MM"] = number(t.dy.value)
        }
        v["GESTURED_DIRECTION"] = g.direction?.rawValue
        v["GESTURED_EDGE"] = g.edge?.rawValue
        v["GESTURED_SHAPE"] = g.shape
        v["GESTURED_SCALE"] = g.scale.map(number)
        v["GESTURED_ROTATION"] = g.rotation.map(number)
        return v
    }

    /// A number as the wire writes it (at most six decimals, no exponent for ordinary values).
    static func number(_ x: Double) -> String {
        let rounded = WireNumber.rounded(x)
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }
}
