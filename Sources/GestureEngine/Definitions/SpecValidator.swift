/// One validation for every definition the engine accepts: the configuration on its own, and a
/// client's `define` in the context of the configuration and the other clients. Errors carry a
/// path from the root of what was validated (`recognizers[3].requires-failure-of[0]`), which the
/// YAML loader turns into FILE:LINE:COLUMN and the protocol into a pointer.
///
/// Visibility: the configuration names only its own regions and recognizers. A client names the
/// configuration's and its own, never another client's; its names must not collide with any.
struct SpecValidator {
    /// Names that definitions being validated may refer to (the configuration's, for a client).
    var outerRegions: Set<String> = []
    var outerRecognizers: Set<String> = []
    /// Names in use by other owners, which definitions being validated must not reuse.
    var takenRegions: Set<String> = []
    var takenRecognizers: Set<String> = []
    let configuration: EngineConfiguration

    init(configuration: EngineConfiguration) {
        self.configuration = configuration
    }

    func validateConfiguration() throws(SpecError) {
        try validate(regions: configuration.regions, recognizers: configuration.recognizers)
    }

    /// Validates a client's definitions; `others` are the definitions of the other clients.
    func validateClient(
        regions: [RegionSpec], recognizers: [RecognizerSpec],
        others: [(regions: [RegionSpec], recognizers: [RecognizerSpec])]
    ) throws(SpecError) {
        var v = self
        v.outerRegions = Set(configuration.regions.map(\.name))
        v.outerRecognizers = Set(configuration.recognizers.map(\.name))
        v.takenRegions = v.outerRegions
        v.takenRecognizers = v.outerRecognizers
        for other in others {
            for r in other.regions { v.takenRegions.insert(r.name) }
            for r in other.recognizers { v.takenRecognizers.insert(r.name) }
        }
        try v.validate(regions: regions, recognizers: recognizers)
    }

    // MARK: - The checks

    private func validate(regions: [RegionSpec], recognizers: [RecognizerSpec]) throws(SpecError) {
        var ownRegions: [String: Int] = [:]
        for (i, region) in regions.enumerated() {
            let path: [SpecPathComponent] = [.key("regions"), .index(i)]
            try checkName(region.name, what: "region", at: path + [.key("name")])
            guard region.name != RegionSpec.rootName else {
                throw SpecError(
                    path: path + [.key("name")], message: "'root' is the whole surface and cannot be redefined")
            }
            if let first = ownRegions[region.name] {
                throw SpecError(
                    path: path + [.key("name")],
                    message: "region '\(region.name)' is already defined at regions[\(first)]")
            }
            guard !takenRegions.contains(region.name) else {
                throw SpecError(path: path + [.key("name")], message: "region name '\(region.name)' is already in use")
            }
            ownRegions[region.name] = i
            try checkRect(region.rect, at: path + [.key("rect")])
        }
        for (i, region) in regions.enumerated() {
            guard let parent = region.parent, parent != RegionSpec.rootName else { continue }
            let path: [SpecPathComponent] = [.key("regions"), .index(i), .key("parent")]
            guard parent != region.name else {
                throw SpecError(path: path, message: "a region cannot be its own parent")
            }
            guard ownRegions[parent] != nil || outerRegions.contains(parent) else {
                throw SpecError(path: path, message: "unknown region '\(parent)'\(visibilityHint)")
            }
            // Follow the chain within these definitions (outer regions never point back here).
            var seen: Set<String> = [region.name]
            var next: String? = parent
            while let name = next, let index = ownRegions[name] {
                guard seen.insert(name).inserted else {
                    throw SpecError(path: path, message: "regions form a cycle through '\(name)'")
                }
                next = regions[index].parent
            }
        }

        var ownRecognizers: [String: Int] = [:]
        for (i, spec) in recognizers.enumerated() {
            let path: [SpecPathComponent] = [.key("recognizers"), .index(i)]
            try checkName(spec.name, what: "recognizer", at: path + [.key("name")])
            if let first = ownRecognizers[spec.name] {
                throw SpecError(
                    path: path + [.key("name")],
                    message: "recognizer '\(spec.name)' is already defined at recognizers[\(first)]")
            }
            guard !takenRecognizers.contains(spec.name) else {
                throw SpecError(
                    path: path + [.key("name")], message: "recognizer name '\(spec.name)' is already in use")
            }
            ownRecognizers[spec.name] = i
        }
        for (i, spec) in recognizers.enumerated() {
            let path: [SpecPathComponent] = [.key("recognizers"), .index(i)]
            if spec.region != RegionSpec.rootName && ownRegions[spec.region] == nil
                && !outerRegions.contains(spec.region)
            {
                throw SpecError(
                    path: path + [.key("region")], message: "unknown region '\(spec.region)'\(visibilityHint)")
            }
            try checkParameters(spec.parameters, at: path)
            try checkWhen(spec.when, at: path + [.key("when")])
            try checkAccepts(spec.accepts, at: path + [.key("accepts")])
            let lists: [(String, [String], Bool)] = [
                ("requires-failure-of", spec.requiresFailureOf, false),
                ("simultaneous-with", spec.simultaneousWith, true),
                ("preempts", spec.preempts, true),
            ]
            for (key, names, wildcard) in lists {
                for (j, name) in names.enumerated() {
                    let at = path + [.key(key), .index(j)]
                    if wildcard && name == "*" { continue }
                    guard name != spec.name else {
                        throw SpecError(path: at, message: "a recognizer cannot name itself")
                    }
                    guard ownRecognizers[name] != nil || outerRecognizers.contains(name) else {
                        throw SpecError(path: at, message: "unknown recognizer '\(name)'\(visibilityHint)")
                    }
                }
            }
        }
        try checkFailureCycles(recognizers, ownRecognizers)
    }

    private var visibilityHint: String {
        outerRecognizers.isEmpty && outerRegions.isEmpty
            ? "" : " (a client may name the configuration's definitions and its own)"
    }

    /// Failure requirements must not form a cycle (UIKit would deadlock; here it is an error).
    /// Outer recognizers never require these, so a cycle lies within these definitions.
    private func checkFailureCycles(_ recognizers: [RecognizerSpec], _ index: [String: Int]) throws(SpecError) {
        // 0 = unvisited, 1 = on the current path, 2 = done.
        var mark = Array(repeating: 0, count: recognizers.count)
        for root in recognizers.indices where mark[root] == 0 {
            // Iterative depth-first search; the stack holds (recognizer, next requirement).
            var stack: [(Int, Int)] = [(root, 0)]
            mark[root] = 1
            while let (node, next) = stack.last {
                let requirements = recognizers[node].requiresFailureOf
                guard next < requirements.count else {
                    mark[node] = 2
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].1 = next + 1
                guard let target = index[requirements[next]] else { continue }
                if mark[target] == 1 {
                    throw SpecError(
                        path: [.key("recognizers"), .index(node), .key("requires-failure-of"), .index(next)],
                        message:
                            "failure requirements form a cycle: '\(recognizers[node].name)' → '\(recognizers[target].name)' → … → '\(recognizers[node].name)'"
                    )
                }
                if mark[target] == 0 {
                    mark[target] = 1
                    stack.append((target, 0))
                }
            }
        }
    }

    private func checkName(_ name: String, what: String, at path: [SpecPathComponent]) throws(SpecError) {
        guard RegionSpec.isValidName(name) else {
            throw SpecError(path: path, message: "expected a \(what) name of 1 to 64 letters, digits, '-', '_' or '.'")
        }
    }

    private func checkRect(_ r: SurfaceRect, at path: [SpecPathComponent]) throws(SpecError) {
        let inUnit = (0...1).contains(r.x) && (0...1).contains(r.y)
        let sized = r.width > 0 && r.width <= 1 && r.height > 0 && r.height <= 1
        guard inUnit, sized, r.x + r.width <= 1.000_001, r.y + r.height <= 1.000_001 else {
            throw SpecError(path: path, message: "expected a rectangle inside the surface (0…1) with a positive size")
        }
    }

    private func require(_ ok: Bool, _ path: [SpecPathComponent], _ message: String) throws(SpecError) {
        guard ok else { throw SpecError(path: path, message: message) }
    }

    private func checkFingers(_ n: Int, _ path: [SpecPathComponent]) throws(SpecError) {
        try require((1...10).contains(n), path, "expected a finger count from 1 to 10")
    }

    private func checkFingerRange(
        _ low: Int, _ high: Int, _ path: [SpecPathComponent], least: Int = 1
    ) throws(SpecError) {
        try require(
            (least...10).contains(low), path + [.key("min-fingers")], "expected a finger count from \(least) to 10")
        try checkFingers(high, path + [.key("max-fingers")])
        try require(high >= low, path + [.key("max-fingers")], "expected max-fingers ≥ min-fingers (\(low))")
    }

    private func checkSpan(_ span: TimeSpan, _ path: [SpecPathComponent]) throws(SpecError) {
        try require((1000...60_000_000).contains(span.microseconds), path, "expected milliseconds from 1 to 60000")
    }

    private func checkSettle(_ span: TimeSpan, _ path: [SpecPathComponent]) throws(SpecError) {
        try require((0...1_000_000).contains(span.microseconds), path, "expected milliseconds from 0 to 1000")
    }

    private func checkLength(_ mm: Millimeters, _ path: [SpecPathComponent], allowZero: Bool = false) throws(SpecError)
    {
        let ok = (mm.value > 0 || (allowZero && mm.value == 0)) && mm.value <= 10_000
        try require(ok, path, "expected millimetres from \(allowZero ? 0 : 0.01) to 10000")
    }

    private func checkParameters(_ parameters: RecognizerParameters, at path: [SpecPathComponent]) throws(SpecError) {
        switch parameters {
        case .tap(let p):
            try require((1...5).contains(p.taps), path + [.key("taps")], "expected a tap count from 1 to 5")
            try checkFingers(p.fingers, path + [.key("fingers")])
            try checkSpan(p.maxDuration, path + [.key("max-duration-ms")])
            try checkSpan(p.maxGap, path + [.key("max-gap-ms")])
            try checkLength(p.slop, path + [.key("slop-mm")])
            try checkLength(p.maxTapDistance, path + [.key("max-tap-distance-mm")])
        case .longPress(let p):
            try checkFingers(p.fingers, path + [.key("fingers")])
            try checkSpan(p.minDuration, path + [.key("min-duration-ms")])
            try checkLength(p.slop, path + [.key("slop-mm")])
        case .pan(let p):
            try checkFingerRange(p.minFingers, p.maxFingers, path)
            try checkLength(p.startDistance, path + [.key("start-distance-mm")], allowZero: true)
            try checkSettle(p.settle, path + [.key("settle-ms")])
        case .swipe(let p):
            try checkFingerRange(p.minFingers, p.maxFingers, path)
            try require(!p.directions.isEmpty, path + [.key("directions")], "expected at least one direction")
            try checkLength(p.minDistance, path + [.key("min-distance-mm")])
            try checkLength(p.minVelocity, path + [.key("min-velocity-mm-s")], allowZero: true)
            try checkSpan(p.maxDuration, path + [.key("max-duration-ms")])
            try require(
                p.angleTolerance > 0 && p.angleTolerance <= 45, path + [.key("angle-tolerance-deg")],
                "expected degrees above 0 and at most 45")
            try checkSettle(p.settle, path + [.key("settle-ms")])
        case .edgeSwipe(let p):
            try require(!p.edges.isEmpty, path + [.key("edges")], "expected at least one edge")
            try checkFingers(p.fingers, path + [.key("fingers")])
            try checkLength(p.band, path + [.key("band-mm")])
            try checkLength(p.minDistance, path + [.key("min-distance-mm")])
        case .pinch(let p):
            try checkFingerRange(p.minFingers, p.maxFingers, path, least: 2)
            try require(
                p.minScaleChange > 0 && p.minScaleChange < 1, path + [.key("min-scale-change")],
                "expected a ratio above 0 and below 1")
        case .rotate(let p):
            try checkFingerRange(p.minFingers, p.maxFingers, path, least: 2)
            try require(
                p.minRotation > 0 && p.minRotation < 180, path + [.key("min-rotation-deg")],
                "expected degrees above 0 and below 180")
        case .shape(let p):
            try require(!p.templates.isEmpty, path + [.key("templates")], "expected at least one template")
            for (i, template) in p.templates.enumerated() {
                let at = path + [.key("templates"), .index(i)]
                guard case .points(let name, let points) = template else { continue }
                try checkName(name, what: "template", at: at + [.key("name")])
                try require(
                    (3...1000).contains(points.count) && points.allSatisfy { $0.x.isFinite && $0.y.isFinite },
                    at + [.key("points")], "expected 3 to 1000 points, each [x, y]")
                let xs = points.map(\.x)
                let ys = points.map(\.y)
                let extent = max(xs.max()! - xs.min()!, ys.max()! - ys.min()!)
                try require(extent > 0, at + [.key("points")], "the points of a template must not all be the same")
            }
            try require((0...1).contains(p.minScore), path + [.key("min-score")], "expected a score from 0 to 1")
            try checkLength(p.minSize, path + [.key("min-size-mm")])
            try checkFingerRange(p.minFingers, p.maxFingers, path)
            try checkSettle(p.settle, path + [.key("settle-ms")])
        }
    }

    private func checkWhen(_ when: BeginConditions, at path: [SpecPathComponent]) throws(SpecError) {
        if let n = when.minFingers { try checkFingers(n, path + [.key("min-fingers")]) }
        if let n = when.maxFingers {
            try checkFingers(n, path + [.key("max-fingers")])
            try require(n >= (when.minFingers ?? 1), path + [.key("max-fingers")], "expected max-fingers ≥ min-fingers")
        }
        if let rect = when.startIn { try checkRect(rect, at: path + [.key("start-in")]) }
        for (i, glob) in when.devices.enumerated() {
            try require(!glob.isEmpty, path + [.key("devices"), .index(i)], "expected a device name pattern")
        }
    }

    private func checkAccepts(_ filter: TouchFilter, at path: [SpecPathComponent]) throws(SpecError) {
        try require(!filter.tools.isEmpty, path + [.key("tools")], "expected at least one tool type")
        if let size = filter.maxContactSize {
            try require(
                size.value > 0 && size.value <= 1000, path + [.key("max-contact-size-mm")],
                "expected millimetres above 0 and at most 1000")
        }
        for (i, glob) in filter.devices.enumerated() {
            try require(!glob.isEmpty, path + [.key("devices"), .index(i)], "expected a device name pattern")
        }
    }
}
