import GestureEngine

// The workload of EngineBenchmarks (the same frame cycle), as a plain program for callgrind:
// instruction counts are repeatable on a shared machine where wall-clock times are not. With a
// third argument it also folds every emitted event, field by field (bit patterns of the numbers),
// into a digest: two builds that print the same digest emitted exactly the same events.
// Run through engine-callgrind.sh.
final class FrameFeed {
    var engine: GestureEngine
    let cycle: [TouchFrame]
    let period: Int64
    var index = 0
    var lap: Int64 = 0
    var events: [EngineEvent] = []
    var emitted = 0
    var check = false
    var hash: UInt64 = 1469598103934665603

    func mix(_ v: UInt64) { hash = (hash ^ v) &* 1099511628211 }
    func mix(_ d: Double?) { mix(d.map { $0.bitPattern } ?? 0xdead) }
    func mix(_ s: String?) { for b in (s ?? "<nil>").utf8 { mix(UInt64(b)) } }

    func digest() {
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
            }
        }
    }

    init(fingers: Int) {
        engine = try! GestureEngine(configuration: .default)
        let device = DeviceDescriptor(
            id: DeviceID(1), label: "bench", name: "bench",
            geometry: SurfaceGeometry(physicalSize: PhysicalSize(width: Millimeters(344), height: Millimeters(194))))
        engine.addDevice(device)
        var frames: [TouchFrame] = []
        let interval: Int64 = 8_333
        let moves = 120
        func positions(_ step: Int) -> [SurfacePoint] {
            let t = Double(step) / Double(moves)
            return (0..<fingers).map { i in
                let angle = Double(i) / Double(fingers) * 6.283 + t * 0.8
                let radius = 0.05 + 0.06 * t
                let c = 1 - angle * angle / 2 + angle * angle * angle * angle / 24
                let s = angle - angle * angle * angle / 6 + angle * angle * angle * angle * angle / 120
                return SurfacePoint(x: 0.5 + radius * c / 1.8 + t * 0.05, y: 0.5 + radius * s)
            }
        }
        func frame(_ step: Int, _ phase: TouchPhase, at time: Int64) -> TouchFrame {
            let p = positions(step)
            return TouchFrame(
                device: device.id, time: Timestamp(microseconds: time),
                touches: (0..<fingers).map { Touch(id: TouchID(UInt32($0 + 1)), phase: phase, position: p[$0]) })
        }
        var time: Int64 = 1_000_000
        frames.append(frame(0, .began, at: time))
        for step in 1...moves {
            time += interval
            frames.append(frame(step, .moved, at: time))
        }
        time += interval
        frames.append(frame(moves, .ended, at: time))
        cycle = frames
        period = time - 1_000_000 + 700_000
        events.reserveCapacity(256)
    }

    @inline(never) func step() {
        var frame = cycle[index]
        frame.time = Timestamp(microseconds: frame.time.microseconds + lap * period)
        engine.process(frame, into: &events)
        emitted &+= events.count
        if check { digest() }
        events.removeAll(keepingCapacity: true)
        index += 1
        if index == cycle.count {
            index = 0
            lap += 1
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
let feed = FrameFeed(fingers: fingers)
feed.check = args.count > 3
run(feed, 2_000)  // warm-up, as the benchmark
measureFrames(feed, frames)
print(feed.emitted, String(feed.hash, radix: 16))
