/// One validation for every definition the engine accepts: the configuration on its own, and a
/// client's `define` in the context of the configuration and the other clients. Errors carry a
/// path from the root of what was validated (`recognizers[3].requires-failure-of[0]`), which the
/// YAML loader turns into FILE:LINE:COLUMN and the protocol into a pointer.
///
/// Visibility: the configuration names only its own regions and recognizers. A client names the
/// configuration's and its own, never another client's; its names must differ from the
/// configuration's (and from each other), not from another client's, which it cannot see: each
/// client's names are its own (docs/PROTOCOL.md, `define`).
struct SpecValidator {
    /// Names that definitions being validated may refer to and must not reuse (the
    /// configuration's, for a client).
    var outerRegions: Set<String> = []
    var outerRecognizers: Set<String> = []
    /// For a client's definitions: what it may do to the outer (configuration's) recognizers.
    var policy: ClientPolicy?
    let configuration: EngineConfiguration

    init(configuration: EngineConfiguration) {
        self.configuration = configuration
    }

    func validateConfiguration() throws(SpecError) {
        try validate(regions: configuration.regions, recognizers: configuration.recognizers)
    }

    /// A validator of clients' definitions under `configuration`: its names gathered once, so
    /// that each `define` (and each client's definitions at a reload) costs in proportion to the
    /// client's definitions, not the configuration's.
    static func forClients(of configuration: EngineConfiguration) -> SpecValidator {
        var v = SpecValidator(configuration: configuration)
        v.outerRegions = Set(configuration.regions.map(\.name))
        v.outerRecognizers = Set(configuration.recognizers.map(\.name))
        v.policy = configuration.clients
        return v
    }

    /// Validates a client's definitions against the configuration (other clients' do not
    /// matter: a client never sees them); `self` is ``forClients(of:)``'s.
    func validateClient(regions: [RegionSpec], recognizers: [RecognizerSpec]) throws(SpecError) {
        try validate(regions: regions, recognizers: recognizers)
    }

    // MARK: - The checks

    private func validate(regions: [RegionSpec], recognizers: [RecognizerSpec]) throws(SpecError) {
        var ownRegions: [String: Int] = [:]
        for (i, region) in regions.enumerated() {
            let path: [SpecPathComponent] = [.key("regions"), .index(i)]
            try checkName(region.name, at: path + [.key("name")])
            guard region.name != RegionSpec.rootName else {
                throw SpecError(
                    path: path + [.key("name")], message: "'root' is the whole surface and cannot be redefined")
            }
            if let first = ownRegions[region.name] {
                throw SpecError(
                    path: path + [.key("name")],
                    message: "region '\(region.name)' is already defined at regions[\(first)]")
            }
            guard !outerRegions.contains(region.name) else {
                throw SpecError(
                    path: path + [.key("name")], message: "region name '\(region.name)' is the configuration's")
            }
            ownRegions[region.name] = i
            try check(region.rect.problem(), at: path + [.key("rect")])
        }
        for (i, region) in regions.enumerated() {
            guard let parent = region.parent, parent != RegionSpec.rootName else { continue }
            let path: [SpecPathComponent] = [.key("regions"), .index(i), .key("parent")]
            guard parent != region.name else {
                throw SpecError(path: path, message: "a region cannot be its own parent")
            }
            guard ownRegions[parent] != nil || outerRegions.contains(parent) else {
                throw SpecError(
                    path: path,
                    message: "unknown region '\(parent)'\(nearest(parent, ownRegions, outerRegions))\(visibilityHint)")
            }
        }
        // The chains within these definitions, each link followed once (outer regions never point
        // back here).
        let chains = RegionForest.depths(count: regions.count) { i in regions[i].parent.flatMap { ownRegions[$0] } }
        if case .failure(let cycle) = chains {
            throw SpecError(
                path: [.key("regions"), .index(cycle.start), .key("parent")],
                message: "regions form a cycle through '\(regions[cycle.repeated].name)'")
        }

        var ownRecognizers: [String: Int] = [:]
        for (i, spec) in recognizers.enumerated() {
            let path: [SpecPathComponent] = [.key("recognizers"), .index(i)]
            try checkName(spec.name, at: path + [.key("name")])
            if let first = ownRecognizers[spec.name] {
                throw SpecError(
                    path: path + [.key("name")],
                    message: "recognizer '\(spec.name)' is already defined at recognizers[\(first)]")
            }
            guard !outerRecognizers.contains(spec.name) else {
                throw SpecError(
                    path: path + [.key("name")], message: "recognizer name '\(spec.name)' is the configuration's")
            }
            ownRecognizers[spec.name] = i
        }
        for (i, spec) in recognizers.enumerated() {
            let path: [SpecPathComponent] = [.key("recognizers"), .index(i)]
            if spec.region != RegionSpec.rootName && ownRegions[spec.region] == nil
                && !outerRegions.contains(spec.region)
            {
                throw SpecError(
                    path: path + [.key("region")],
                    message: "unknown region '\(spec.region)'\(nearest(spec.region, ownRegions, outerRegions))"
                        + visibilityHint)
            }
            try checkParameters(spec.parameters, at: path)
            try check(spec.when.problem(), at: path + [.key("when")])
            try check(spec.accepts.problem(), at: path + [.key("accepts")])
            let lists: [(String, [String], Bool)] = [
                ("requires-failure-of", spec.requiresFailureOf, false),
                ("simultaneous-with", spec.simultaneousWith, true),
                ("preempts", spec.preempts, true),
            ]
            for (key, names, wildcard) in lists {
                for (j, name) in names.enumerated() {
                    let at = path + [.key(key), .index(j)]
                    try checkPolicy(key, name, at: at)
                    if wildcard && name == "*" { continue }
                    guard name != spec.name else {
                        throw SpecError(path: at, message: "a recognizer cannot name itself")
                    }
                    guard ownRecognizers[name] != nil || outerRecognizers.contains(name) else {
                        throw SpecError(
                            path: at,
                            message: "unknown recognizer '\(name)'"
                                + nearest(name, ownRecognizers, outerRecognizers) + visibilityHint)
                    }
                }
            }
        }
        try checkFailureCycles(recognizers, ownRecognizers)
    }

    /// A client may not preempt (`*` included) or require the failure of the configuration's
    /// recognizers unless the configuration's `clients` policy grants it.
    private func checkPolicy(_ key: String, _ name: String, at path: [SpecPathComponent]) throws(SpecError) {
        guard let policy else { return }
        switch key {
        case "preempts" where !policy.mayPreempt && (name == "*" || outerRecognizers.contains(name)):
            throw SpecError(
                path: path,
                message: name == "*"
                    ? "a client recognizer may not preempt '*' (every recognizer) here: the configuration does not grant 'clients: {may-preempt: true}'"
                    : "a client recognizer may not preempt the configuration's '\(name)': the configuration does not grant 'clients: {may-preempt: true}'"
            )
        case "requires-failure-of" where !policy.mayRequireFailure && outerRecognizers.contains(name):
            throw SpecError(
                path: path,
                message:
                    "a client recognizer may not require the failure of the configuration's '\(name)': the configuration does not grant 'clients: {may-require-failure: true}'"
            )
        default:
            return
        }
    }

    /// "Did you mean" among the names these definitions and the outer ones give.
    private func nearest(_ name: String, _ own: [String: Int], _ outer: Set<String>) -> String {
        NearestWord.hint(for: name, among: (Array(own.keys) + outer).sorted())
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

    private func checkName(_ name: String, at path: [SpecPathComponent]) throws(SpecError) {
        guard RegionSpec.isValidName(name) else { throw SpecError(path: path, message: RegionSpec.nameExpectation) }
    }

    /// The rules decoding applies (the descriptors and the shared pieces' own rules), for specs
    /// built in code.
    private func check(_ problem: ParameterProblem?, at path: [SpecPathComponent]) throws(SpecError) {
        if let problem { throw SpecError(path: path + problem.path, message: problem.message) }
    }

    private func checkParameters(_ parameters: RecognizerParameters, at path: [SpecPathComponent]) throws(SpecError) {
        let problem = parameters.kind.visit(ParametersProblem(parameters: parameters))
        if let problem { throw SpecError(path: path + problem.path, message: problem.message) }
    }
}

private struct ParametersProblem: KindVisitor {
    let parameters: RecognizerParameters

    func visit<Kind: KindDefinition>(_: Kind.Type) -> (path: [SpecPathComponent], message: String)? {
        parameters.of(Kind.self).problem()
    }
}
