import GestureEngine

// The workload of EngineBenchmarks (the same frame cycle), as a plain program for callgrind:
// instruction counts are repeatable on a shared machine where wall-clock times are not. With a
// third argument it also folds every emitted event, field by field (bit patterns of the numbers),
// into a digest: two builds that print the same digest emitted exactly the same events. With the
// argument `explain` the engine explains its decisions (GestureEngine.explains), as for a client
// subscribed with explanations; with `quiet` the views are not told of moving touches
// (GestureEngine.reportsTouchMoves off), as in the daemon while no client takes raw touches. Run
// through engine-callgrind.sh.

/// Folds events, field by field, into an FNV-1a hash.
final class Digest {
    var hash: UInt64 = 1469598103934665603

    func mix(_ v: UInt64) { hash = (hash ^ v) &* 1099511628211 }
    func mix(_ d: Double?) { mix(d.map { $0.bitPattern } ?? 0xdead) }
    func mix(_ s: String?) { for b in (s ?? "<nil>").utf8 { mix(UInt64(b)) } }

    func fold(_ events: [EngineEvent]) {
        for e in events {
            switch e {
            case .gesture(let g):
                mix(g.name); mix(g.region); mix(g.shape); mix(UInt64(g.fingers)); mix(g.state.rawValue);
                mix(g.kind.rawValue)
                mix(UInt64(bitPattern: g.time.microseconds)); mix(g.position.x); mix(g.position.y)
                mix(g.positionMM?.x.value); mix(g.positionMM?.y.value)
                mix(g.translation.dx); mix(g.translation.dy); mix(g.translationMM?.dx.value);
                mix(g.translationMM?.dy.value)
                mix(g.velocity.dx); mix(g.velocity.dy); mix(g.velocityMM?.dx.value); mix(g.velocityMM?.dy.value)
                mix(g.scale); mix(g.rotation); mix(g.scaleVelocity); mix(g.rotationVelocity); mix(g.score)
                mix(g.direction?.rawValue); mix(g.edge?.rawValue)
                for t in g.touches { mix(UInt64(t.rawValue)) }
            case .touch(let t):
                mix(t.region); mix(UInt64(t.touch.id.rawValue)); mix(t.touch.phase.description);
                mix(t.touch.position.x); mix(t.touch.position.y)
                mix(UInt64(bitPattern: t.time.microseconds))
            case .explanation(let e):
                mix(e.name); mix(UInt64(e.rule?.rawValue ?? 0)); mix(UInt64(bitPattern: e.time.microseconds))
            case .panel(let p):
                mix(UInt64(p.touch?.rawValue ?? 0)); mix(UInt64(bitPattern: p.time.microseconds))
            }
        }
    }
}

@inline(never) func run(_ feed: FrameFeed, _ n: Int) {
    for _ in 0..<n { feed.step() }
}

@inline(never) func measureFrames(_ feed: FrameFeed, _ n: Int) {
    for _ in 0..<n { feed.step() }
}

let args = CommandLine.arguments
let fingers = Int(args[1])!
let frames = Int(args[2])!
let feed = FrameFeed(fingers: fingers, explains: args.contains("explain"), reportsTouchMoves: !args.contains("quiet"))
let digest = Digest()
if args.contains("digest") { feed.inspect = { digest.fold($0) } }
run(feed, 2_000)  // warm-up, as the benchmark
measureFrames(feed, frames)
print(feed.emitted, String(digest.hash, radix: 16))
