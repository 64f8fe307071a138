/// The definitions of every owner resolved into indices, once per configuration change, so that
/// the per-frame path never looks up a name: regions with their hit-test order and delivery
/// lists (R1), recognizers with their relations as adjacency lists (R4–R6).
///
/// Recognizer indices: the configuration's in order, then each client's in the order the clients
/// defined them. Region 0 is the root; the configuration's regions come before every client's.
///
/// Owners (docs/ARBITRATION.md, "Client recognizers"): each client sees the configuration's
/// regions and recognizers and its own, never another client's — names resolve in its own
/// definitions, then in the configuration's; a touch is hit-tested, for each owner, among the
/// regions that owner sees (the configuration's own only, unless the policy lets client regions
/// cover them); two clients' recognizers never arbitrate.
///
/// Compiling n recognizers with e named relations and g regions costs O(n log n + e + g log g):
/// `*` is a flag, and so is "a client's recognizer observes the configuration's" (the `clients`
/// policy), neither a row of pairs; named relations are adjacency lists in one flat array
/// (``Relation``), never an n × n matrix; delivery is per-region buckets walked up the regions
/// that have recognizers, never a list of every ancestor's for each region; regions are walked
/// once, depth first (however deep they nest); the order is one sort; what a kind prepares (a
/// shape's templates) is prepared once per owner's definitions (``Definitions/prepared``), not at
/// every recompile. So a client's `define` costs
/// in proportion to everything running, not to its square (docs/PERFORMANCE.md, "Defining").
struct CompiledSet: Sendable {
    /// One owner's definitions, with what their kinds prepare (``KindDefinition/prepare(_:)``)
    /// prepared once.
    struct Definitions: Sendable {
        var owner: Owner
        var regions: [RegionSpec]
        var recognizers: [RecognizerSpec]
        /// What the kinds of its recognizers prepared, by recognizer name (none for most kinds).
        let prepared: [String: any PreparedParameters]

        init(owner: Owner, regions: [RegionSpec], recognizers: [RecognizerSpec]) {
            self.owner = owner
            self.regions = regions
            self.recognizers = recognizers
            var prepared: [String: any PreparedParameters] = [:]
            for r in recognizers.indices {
                guard let p = recognizers[r].parameters.prepared else { continue }
                prepared[recognizers[r].name] = p
            }
            self.prepared = prepared
        }
    }

    /// Recognizer flags (R8).
    struct Flags: OptionSet, Sendable {
        let rawValue: UInt8
        static let cancelsTouches = Flags(rawValue: 1)
        static let delaysTouchesBegan = Flags(rawValue: 2)
        static let delaysTouchesEnded = Flags(rawValue: 4)
    }

    /// R1: an `accepts` filter resolved for fast checks (device globs are resolved per device).
    struct Filter: Sendable {
        var tools: UInt8
        var maxContactSize: Double?
        var devices: [String]

        @inline(__always) static func bit(_ tool: ToolType) -> UInt8 {
            switch tool {
            case .finger: 1
            case .pen: 2
            case .palm: 4
            }
        }
    }

    // MARK: Owners
    /// A hit-test viewer or an owner as a small number: 0 the configuration, 1, 2, … each client
    /// in the order of the definitions (renumbered at every compile).
    typealias Group = Int32
    /// The viewer that sees every owner's regions: the configuration's under `may-cover`.
    static let everyone: Group = -1

    // MARK: Regions
    var regionNames: [String] = [RegionSpec.rootName]
    var regionRects: [SurfaceRect] = [.unit]
    var regionOwners: [Owner] = [.configuration]
    var regionGroups: [Group] = [0]
    /// What a touch landing in each region is private to: the private regions among it and its
    /// ancestors (``Privacy``).
    var regionPrivacy: [Privacy] = [.open]
    /// The first client region: the configuration's regions are `1 ..< firstClientRegion`.
    var firstClientRegion = 1
    /// Children of each region, in hit-test order: highest z first, later definitions first.
    var regionChildren: [[Int]] = [[]]
    /// R1: the recognizers attached to each region, in definition order: region `g`'s are
    /// `attached[links[g].start ..< links[g + 1].start]`. With each region's nearest ancestor
    /// that has any (``RegionLinks``), ``delivery(from:)`` walks only regions with recognizers.
    /// Linear in regions and recognizers: a list of every ancestor's recognizers for each region
    /// was quadratic in the nesting (a chain of 20 000 regions with a recognizer each: 200
    /// million entries).
    private var attached: [Int32] = []
    /// One entry a region and one more (whose `start` ends the last region's recognizers).
    private var links: [RegionLinks] = [RegionLinks(start: 0, up: -1, walkIn: 0, walkOut: 1), RegionLinks()]

    /// What delivery and ancestry need of a region.
    struct RegionLinks: Sendable {
        /// Where its recognizers start in ``attached``.
        var start: Int32 = 0
        /// Its nearest ancestor with recognizers attached; -1: none.
        var up: Int32 = -1
        /// Its place in a depth-first walk of the regions: `a` is `g` or an ancestor of `g` exactly
        /// when `walkIn(a) <= walkIn(g) < walkOut(a)` (``delivers(_:to:)`` in one step).
        var walkIn: Int32 = 0
        var walkOut: Int32 = 0
    }

    // MARK: Recognizers
    var names: [String] = []
    var kinds: [GestureKind] = []
    var owners: [Owner] = []
    var groups: [Group] = []
    var regionOf: [Int] = []
    var flags: [Flags] = []
    var when: [BeginConditions] = []
    var accepts: [Filter] = []
    var parameters: [RecognizerParameters] = []
    /// What a recognizer's kind prepared (``KindDefinition/prepare(_:)``), by recognizer, for the
    /// few whose kind prepares anything: read by its definition's `machine(_:_:scale:)` when a
    /// device's machines are made. Sparse, so that hundreds of taps cost a set nothing here.
    var prepared: [Int: any PreparedParameters] = [:]
    /// The names a report's ``Report/shape`` picks from, by recognizer (those that prepared).
    var shapeNames: [Int: [String]] = [:]
    /// R4: whom each recognizer waits for, and who waits for it.
    var requires: [[Int]] = []
    var dependents: [[Int]] = []
    /// R6 and R5: the named pairs, and who names `*`.
    var simultaneous = Relation()
    var preempts = Relation()
    var simultaneousWithAll: [Bool] = []
    var preemptsAll: [Bool] = []
    /// Whether a client's recognizer and a configuration's are simultaneous, whatever they name
    /// (the `clients` policy without ``ClientPolicy/mayCompete``).
    var clientsObserve = false
    /// Who the configuration's recognizers see touches land in (R1): its own regions only, or
    /// everyone's under ``ClientPolicy/mayCover``.
    var configurationViewer: Group = 0
    /// The order recognizers handle a frame and fire ties: innermost region first (as UIKit
    /// delivers to the hit view's recognizers before its ancestors'), then definition order.
    var order: [Int] = []
    /// Index of each recognizer by owner and name, for carrying state across redefinitions.
    var index: [Key: Int] = [:]

    struct Key: Hashable, Sendable {
        var owner: Owner
        var name: String
    }

    var count: Int { names.count }

    /// R6, with the owners' rule: recognizers of two clients are always simultaneous (they never
    /// arbitrate), and so are a client's and the configuration's unless the policy lets them
    /// compete.
    @inline(__always) func isSimultaneous(_ a: Int, _ b: Int) -> Bool {
        simultaneousWithAll[a] || simultaneousWithAll[b] || apart(a, b) || simultaneous.contains(a, b)
    }

    /// Owned by two owners that do not arbitrate with each other (two clients; a client and the
    /// configuration under the default policy).
    @inline(__always) func apart(_ a: Int, _ b: Int) -> Bool {
        let (ga, gb) = (groups[a], groups[b])
        return ga != gb && (clientsObserve || (ga != 0 && gb != 0))
    }

    /// Whether a decision about one may name the other: never across two clients, whose
    /// recognizers do not see each other.
    @inline(__always) func meet(_ a: Int, _ b: Int) -> Bool {
        let (ga, gb) = (groups[a], groups[b])
        return ga == gb || ga == 0 || gb == 0
    }

    @inline(__always) func doesPreempt(_ a: Int, _ b: Int) -> Bool {
        preemptsAll[a] || preempts.contains(a, b)
    }

    /// R1: whether a touch landing in `region` (as `r`'s owner sees it) is delivered to
    /// recognizer `r` (attached to that region or an ancestor).
    func delivers(_ region: Int, to r: Int) -> Bool {
        let (a, g) = (links[regionOf[r]], links[region])
        return a.walkIn <= g.walkIn && g.walkIn < a.walkOut
    }

    /// R1: each recognizer a touch landing in `region` goes to, in order: the region's own, then
    /// its parent's, up to the root's, each region's in definition order.
    @inline(__always) func forEachDelivered(from region: Int, _ body: (Int) -> Void) {
        links.withUnsafeBufferPointer { links in
            attached.withUnsafeBufferPointer { attached in
                var region = links[region].start == links[region + 1].start ? Int(links[region].up) : region
                while region >= 0 {
                    for i in Int(links[region].start)..<Int(links[region + 1].start) { body(Int(attached[i])) }
                    region = Int(links[region].up)
                }
            }
        }
    }

    /// Compiles validated definitions (the configuration's first) under the configuration's
    /// `clients` policy: unless it grants ``ClientPolicy/mayCompete``, every client recognizer
    /// is simultaneous with every configuration recognizer; unless ``ClientPolicy/mayCover``,
    /// client regions are not in the configuration's hit-test.
    init(_ owners: [Definitions], policy: ClientPolicy) {
        var regionIndex: [Key: Int] = [Key(owner: .configuration, name: RegionSpec.rootName): 0]
        var regionParents = [-1]
        var pendingParents: [(Int, String?)] = []
        var z: [Int] = [0]
        var privateRegions: [Bool] = [false]
        for (g, definitions) in owners.enumerated() {
            for region in definitions.regions {
                privateRegions.append(region.isPrivate)
                regionIndex[Key(owner: definitions.owner, name: region.name)] = regionNames.count
                pendingParents.append((regionNames.count, region.parent))
                regionNames.append(region.name)
                regionRects.append(region.rect)
                regionParents.append(0)
                regionOwners.append(definitions.owner)
                regionGroups.append(Group(g))
                regionChildren.append([])
                z.append(region.z)
            }
        }
        firstClientRegion = 1 + (owners.first?.owner == .configuration ? owners[0].regions.count : 0)
        /// A name an owner uses: its own definition, else the configuration's.
        func resolve<Value>(_ name: String, by owner: Owner, in index: [Key: Value]) -> Value? {
            index[Key(owner: owner, name: name)] ?? index[Key(owner: .configuration, name: name)]
        }
        for (region, parent) in pendingParents {
            regionParents[region] = parent.flatMap { resolve($0, by: regionOwners[region], in: regionIndex) } ?? 0
            regionChildren[regionParents[region]].append(region)
        }
        for r in regionChildren.indices {
            regionChildren[r].sort { z[$0] != z[$1] ? z[$0] > z[$1] : $0 > $1 }
        }

        var specs: [RecognizerSpec] = []
        for (g, definitions) in owners.enumerated() {
            for spec in definitions.recognizers {
                index[Key(owner: definitions.owner, name: spec.name)] = specs.count
                if let p = definitions.prepared[spec.name] {
                    prepared[specs.count] = p
                    shapeNames[specs.count] = p.shapeNames
                }
                specs.append(spec)
                self.owners.append(definitions.owner)
                groups.append(Group(g))
            }
        }
        let n = specs.count
        var simultaneousPairs: [(Int, Int)] = []
        var preemptsPairs: [(Int, Int)] = []
        simultaneousWithAll = Array(repeating: false, count: n)
        preemptsAll = Array(repeating: false, count: n)
        dependents = Array(repeating: [], count: n)
        clientsObserve = !policy.mayCompete
        configurationViewer = policy.mayCover ? Self.everyone : 0
        for (i, spec) in specs.enumerated() {
            let owner = self.owners[i]
            names.append(spec.name)
            kinds.append(spec.kind)
            regionOf.append(resolve(spec.region, by: owner, in: regionIndex) ?? 0)
            var f: Flags = []
            if spec.cancelsTouches { f.insert(.cancelsTouches) }
            if spec.delaysTouchesBegan { f.insert(.delaysTouchesBegan) }
            if spec.delaysTouchesEnded { f.insert(.delaysTouchesEnded) }
            flags.append(f)
            when.append(spec.when)
            var tools: UInt8 = 0
            for tool in spec.accepts.tools { tools |= Filter.bit(tool) }
            accepts.append(
                Filter(tools: tools, maxContactSize: spec.accepts.maxContactSize?.value, devices: spec.accepts.devices))
            parameters.append(spec.parameters)
            let required = spec.requiresFailureOf.compactMap { resolve($0, by: owner, in: index) }
            requires.append(required)
            for b in required { dependents[b].append(i) }
            for name in spec.simultaneousWith {
                if name == "*" {
                    simultaneousWithAll[i] = true
                } else if let j = resolve(name, by: owner, in: index) {
                    simultaneousPairs.append((i, j))
                }
            }
            for name in spec.preempts {
                if name == "*" {
                    preemptsAll[i] = true
                } else if let j = resolve(name, by: owner, in: index) {
                    preemptsPairs.append((i, j))
                }
            }
        }
        simultaneous = Relation(count: n, pairs: simultaneousPairs, symmetric: true)
        preempts = Relation(count: n, pairs: preemptsPairs, symmetric: false)
        let depth = prepareDelivery(parents: regionParents, privateRegions: privateRegions)
        order = Array(0..<n).sorted { a, b in
            let (da, db) = (depth[regionOf[a]], depth[regionOf[b]])
            return da != db ? da > db : a < b
        }
    }

    /// The attached recognizers by region (a counting sort), each region's nearest ancestor
    /// with any, the depth-first walk's numbering and each region's privacy (its own and its
    /// ancestors'): each O(regions + recognizers). Returns each region's depth (the root's is 0).
    private mutating func prepareDelivery(parents: [Int], privateRegions: [Bool]) -> [Int] {
        let g = regionNames.count
        var links = [RegionLinks](repeating: RegionLinks(), count: g + 1)
        for r in regionOf.indices { links[regionOf[r] + 1].start += 1 }
        for region in 0..<g { links[region + 1].start += links[region].start }
        var place = links.map(\.start)
        attached = [Int32](repeating: 0, count: regionOf.count)
        for r in regionOf.indices {
            attached[Int(place[regionOf[r]])] = Int32(r)
            place[regionOf[r]] += 1
        }
        func hasRecognizers(_ region: Int) -> Bool { links[region].start != links[region + 1].start }
        // Parents before children: the walk from the root, iterative (nesting may be deep).
        var depth = [Int](repeating: 0, count: g)
        var privacy = [Privacy](repeating: .open, count: g)
        var clock: Int32 = 0
        var stack: [(region: Int, child: Int)] = [(0, 0)]
        while let (region, child) = stack.last {
            if child == 0 && region != 0 {
                let up = parents[region]
                links[region].up = hasRecognizers(up) ? Int32(up) : links[up].up
                depth[region] = stack.count - 1
            }
            guard child < regionChildren[region].count else {
                clock += 1
                links[region].walkOut = clock
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].child = child + 1
            let next = regionChildren[region][child]
            privacy[next] = privacy[region]
            if privateRegions[next] { privacy[next].formUnion(Privacy(privateTo: regionOwners[next])) }
            clock += 1
            links[next].walkIn = clock
            stack.append((next, 0))
        }
        self.links = links
        regionPrivacy = privacy
        return depth
    }

    /// The topmost innermost region at `p` that `viewer` sees (R1): descend from the root into
    /// the first child, in hit-test order, that contains the point and that the viewer sees — the
    /// configuration's regions and, for a client, its own; every region for ``everyone``.
    func hitTest(_ p: SurfacePoint, seenBy viewer: Group) -> Int {
        var current = 0
        var descended = true
        while descended {
            descended = false
            for child in regionChildren[current] where regionRects[child].contains(p) {
                let owner = regionGroups[child]
                guard owner == 0 || owner == viewer || viewer == Self.everyone else { continue }
                current = child
                descended = true
                break
            }
        }
        return current
    }

    /// Who recognizer `r` sees touches land in (R1).
    @inline(__always) func viewer(of r: Int) -> Group {
        groups[r] == 0 ? configurationViewer : groups[r]
    }
}

/// A relation between recognizers (who is simultaneous with whom, who preempts whom) as
/// adjacency lists in one flat array: each recognizer's partners are
/// `partners[start[r] ..< start[r + 1]]`. Building it is O(n + pairs) (a counting sort), a lookup
/// scans one recognizer's few named partners, and nothing is n × n.
struct Relation: Sendable {
    private var start: [Int32] = [0]
    private var partners: [Int32] = []

    init() {}

    /// `pairs` (a, b) relate a to b, and b to a too when `symmetric`.
    init(count n: Int, pairs: [(Int, Int)], symmetric: Bool) {
        var start = [Int32](repeating: 0, count: n + 1)
        for (a, b) in pairs {
            start[a + 1] += 1
            if symmetric { start[b + 1] += 1 }
        }
        for r in 0..<n { start[r + 1] += start[r] }
        var next = start
        var partners = [Int32](repeating: 0, count: Int(start[n]))
        for (a, b) in pairs {
            partners[Int(next[a])] = Int32(b)
            next[a] += 1
            if symmetric {
                partners[Int(next[b])] = Int32(a)
                next[b] += 1
            }
        }
        self.start = start
        self.partners = partners
    }

    @inline(__always) func contains(_ a: Int, _ b: Int) -> Bool {
        let target = Int32(truncatingIfNeeded: b)
        var i = Int(start[a])
        let end = Int(start[a + 1])
        while i < end {
            if partners[i] == target { return true }
            i += 1
        }
        return false
    }
}
