/// Regions' parent links as a forest, walked once: each region's depth, or the cycle that makes
/// them no forest. The validator's cycle check and the compiled set's innermost-first order both
/// come from it, so both are linear in the number of regions however deep they nest: each
/// region's parent is asked for once (a chain of 20 000 regions costs 20 000 lookups where
/// following every region's chain to the top cost 200 million).
enum RegionForest {
    /// Parent links that come back to a region: met walking up from region `start` (the lowest
    /// index whose chain reaches a cycle), at region `repeated`, the first one met twice.
    struct Cycle: Error, Hashable {
        var start: Int
        var repeated: Int
    }

    /// The depth of each of `count` regions (0 for a region without a parent among them), where
    /// `parent(i)` is region `i`'s parent among them, nil for none (the surface, or a region
    /// outside those walked); or the first cycle.
    static func depths(count: Int, parent: (Int) -> Int?) -> Result<[Int], Cycle> {
        // -1: not reached yet; -2: on the walk under way; otherwise the depth.
        var depth = [Int](repeating: -1, count: count)
        var walk: [Int] = []
        for start in 0..<count where depth[start] == -1 {
            var current = start
            var top = 0
            while true {
                depth[current] = -2
                walk.append(current)
                guard let next = parent(current) else { break }
                if depth[next] == -2 { return .failure(Cycle(start: start, repeated: next)) }
                if depth[next] >= 0 {
                    top = depth[next] + 1
                    break
                }
                current = next
            }
            // The walk went from `start` up to a region of depth `top`.
            for (i, region) in walk.reversed().enumerated() { depth[region] = top + i }
            walk.removeAll(keepingCapacity: true)
        }
        return .success(depth)
    }
}
