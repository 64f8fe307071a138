import GestureEngine
import GestureProtocol

/// `gestured replay FILE --svg OUT.svg`: what the engine saw, drawn to scale in millimetres — the
/// panel's outline, every touch's path in a colour of its own with a dot at each sample (a ring
/// where it landed, a cross where it lifted), each gesture labelled where it was recognized (or
/// began) with its name, state and direction, and the configuration's regions and edge-swipe
/// bands drawn faintly. Plain SVG 1.1 text, no script and no dependency: any browser opens it.
///
/// One recording, one panel: frames of other devices are ignored.
public struct ReplayPicture {
    private struct Track {
        var id: UInt32
        var points: [(x: Double, y: Double)] = []
        var landed = false
        var lifted = false
    }

    private struct Label {
        var x: Double
        var y: Double
        var text: String
    }

    private let configuration: EngineConfiguration
    private var device: DeviceDescriptor?
    private var tracks: [Track] = []
    private var trackIndex: [TouchID: Int] = [:]
    private var labels: [Label] = []

    public init(configuration: EngineConfiguration) {
        self.configuration = configuration
    }

    /// Millimetres of the panel (the assumed size when it reports none, as the engine measures).
    private var size: (width: Double, height: Double) {
        guard let device else { return (344, 194) }
        let s = device.geometry.measuringSize
        return (s.width.value, s.height.value)
    }

    /// A frame the engine processed.
    public mutating func add(_ frame: TouchFrame, device: DeviceDescriptor) {
        if self.device == nil { self.device = device }
        guard self.device?.id == device.id else { return }
        let (w, h) = size
        for touch in frame.touches {
            let index: Int
            if let known = trackIndex[touch.id], !(touch.phase == .began && tracks[known].lifted) {
                index = known
            } else {
                index = tracks.count
                trackIndex[touch.id] = index
                tracks.append(Track(id: touch.id.rawValue))
            }
            switch touch.phase {
            case .stationary: continue
            case .began: tracks[index].landed = true
            case .moved: break
            case .ended, .cancelled: tracks[index].lifted = true
            }
            tracks[index].points.append((touch.position.x * w, touch.position.y * h))
        }
    }

    /// A message the replay printed: recognized and began gestures get a label.
    public mutating func add(_ message: ServerMessage) {
        guard case .gesture(let g) = message, g.state == .recognized || g.state == .began else { return }
        let (w, h) = size
        var text = "\(g.name) \(g.state.rawValue)"
        if let direction = g.direction { text += " \(direction.rawValue)" }
        if let edge = g.edge { text += " from \(edge.rawValue)" }
        if let shape = g.shape { text += " \(shape)" }
        if g.fingers > 1 { text += " (\(g.fingers) fingers)" }
        labels.append(Label(x: g.position.x * w, y: g.position.y * h, text: text))
    }

    /// The picture.
    public func svg() -> String {
        let (w, h) = size
        let margin = 6.0
        // A line under the panel saying what the marks mean.
        let legend = 6.0
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(n(2 * (w + 2 * margin)))" \
            height="\(n(2 * (h + 2 * margin + legend)))" viewBox="\(n(-margin)) \(n(-margin)) \(n(w + 2 * margin)) \(n(h + 2 * margin + legend))" \
            font-family="sans-serif">
            <title>\(escape(device?.label ?? "replay")): \(n(w)) × \(n(h)) mm, \(tracks.count) touches, \(labels.count) gestures</title>

            """
        out += "<rect class=\"panel\" x=\"0\" y=\"0\" width=\"\(n(w))\" height=\"\(n(h))\" fill=\"#fafafa\" "
        out += "stroke=\"#333\" stroke-width=\"0.6\"/>\n"
        var key = "○ a touch lands, × it lifts, a line is its path; a label: a gesture where it was recognized "
            + "(began, for one that moves), stacked where several are"
        if !configuration.regions.isEmpty { key += "; dashed: a region" }
        if configuration.recognizers.contains(where: { !$0.parameters.edgeBands.isEmpty }) {
            key += "; shaded: an edge band"
        }
        out += "<text class=\"legend\" x=\"0\" y=\"\(n(h + margin + 2))\" font-size=\"3\" fill=\"#555\">"
        out += "\(escape(key)) (\(n(w)) × \(n(h)) mm)</text>\n"
        for region in configuration.regions {
            let r = region.rect
            out += "<rect class=\"region\" x=\"\(n(r.x * w))\" y=\"\(n(r.y * h))\" width=\"\(n(r.width * w))\" "
            out += "height=\"\(n(r.height * h))\" fill=\"#4a7bd0\" fill-opacity=\"0.07\" stroke=\"#4a7bd0\" "
            out += "stroke-opacity=\"0.4\" stroke-width=\"0.3\" stroke-dasharray=\"2 1\"/>\n"
            out += "<text class=\"region-name\" x=\"\(n(r.x * w + 1.5))\" y=\"\(n(r.y * h + 4))\" font-size=\"3\" "
            out += "fill=\"#4a7bd0\" fill-opacity=\"0.7\">\(escape(region.name))</text>\n"
        }
        for recognizer in configuration.recognizers {
            for edgeBand in recognizer.parameters.edgeBands {
                let band = edgeBand.width.value
                let (x, y, bw, bh): (Double, Double, Double, Double) =
                    switch edgeBand.edge {
                    case .left: (0, 0, band, h)
                    case .right: (w - band, 0, band, h)
                    case .top: (0, 0, w, band)
                    case .bottom: (0, h - band, w, band)
                    }
                out += "<rect class=\"edge-band\" x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(bw))\" height=\"\(n(bh))\" "
                out += "fill=\"#d08a4a\" fill-opacity=\"0.08\"><title>\(escape(recognizer.name)): "
                out += "\(edgeBand.edge.rawValue) edge, \(edgeBand.key.rawValue) \(n(band))</title></rect>\n"
            }
        }
        for (i, track) in tracks.enumerated() where !track.points.isEmpty {
            let colour = Self.colour(i)
            var d = ""
            for (j, p) in track.points.enumerated() { d += (j == 0 ? "M" : " L") + "\(n(p.x)) \(n(p.y))" }
            out += "<g class=\"touch-\(track.id)\">\n"
            out += "<path class=\"touch\" d=\"\(d)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"0.5\" "
            out += "stroke-linejoin=\"round\"><title>touch \(track.id)</title></path>\n"
            for p in track.points {
                out += "<circle cx=\"\(n(p.x))\" cy=\"\(n(p.y))\" r=\"0.45\" fill=\"\(colour)\"/>\n"
            }
            if track.landed, let first = track.points.first {
                out += "<circle class=\"landing\" cx=\"\(n(first.x))\" cy=\"\(n(first.y))\" r=\"2\" fill=\"none\" "
                out += "stroke=\"\(colour)\" stroke-width=\"0.5\"/>\n"
            }
            if track.lifted, let last = track.points.last {
                let (x, y, a) = (last.x, last.y, 1.6)
                out += "<path class=\"lift\" d=\"M\(n(x - a)) \(n(y - a)) L\(n(x + a)) \(n(y + a)) M\(n(x - a)) "
                out += "\(n(y + a)) L\(n(x + a)) \(n(y - a))\" stroke=\"\(colour)\" stroke-width=\"0.6\"/>\n"
            }
            out += "</g>\n"
        }
        // Labels at one place are stacked, not drawn over each other.
        var placed: [(x: Double, y: Double)] = []
        for label in labels {
            var y = label.y - 2.5
            while placed.contains(where: { abs($0.x - label.x) < 30 && abs($0.y - y) < 4.5 }) { y -= 5 }
            placed.append((label.x, y))
            out += "<text class=\"gesture\" x=\"\(n(label.x + 2.5))\" y=\"\(n(y))\" font-size=\"4\" "
            out += "fill=\"#111\" stroke=\"#fff\" stroke-width=\"0.8\" paint-order=\"stroke\">"
            out += "\(escape(label.text))</text>\n"
        }
        return out + "</svg>\n"
    }

    /// Distinct hues, the golden angle apart.
    private static func colour(_ i: Int) -> String {
        "hsl(\(Int((Double(i) * 137.508).truncatingRemainder(dividingBy: 360))), 70%, 42%)"
    }

    /// Millimetres to 0.01 mm.
    private func n(_ x: Double) -> String { ExplainMessage.number(x, 2) }

    private func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
