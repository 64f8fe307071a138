import GestureEngine

// What a client's `define` costs, in its two parts, and what client recognizers cost a frame:
// a plain program for callgrind (run through define-callgrind.sh). The engine runs the default
// set, one device, and OTHERS client recognizers (clients of 64 taps each with
// `simultaneous-with: ["*"]`, the observers docs/CONFIGURATION.md recommends); then one more
// client defines 64 such taps DEFINES times (alternating names, so each define after the first
// replaces the last). `makeSet` is the part the daemon runs on its compiler thread (validate and
// compile), `installSet` the part on the input thread (carry every device's state over).
// usage: define-driver define OTHERS DEFINES | frames OTHERS FRAMES

func taps(_ prefix: String) -> [RecognizerSpec] {
    (0..<64).map { RecognizerSpec(name: "\(prefix)-\($0)", parameters: .tap(TapParameters()), simultaneousWith: ["*"]) }
}

@inline(never) func makeSet(_ engine: GestureEngine, _ i: Int) -> DefinitionSet {
    try! engine.definitions.defining(owner: .client(1000), regions: [], recognizers: taps("x\(i % 2)"))
}

@inline(never) func installSet(_ engine: inout GestureEngine, _ next: DefinitionSet, _ events: inout [EngineEvent]) {
    guard engine.install(next, at: Timestamp(microseconds: 0), into: &events) else { fatalError("stale set") }
}

let args = CommandLine.arguments
let others = Int(args[2])!
let n = Int(args[3])!
var engine = try! GestureEngine(configuration: .default)
var events: [EngineEvent] = []
for c in 0..<others / 64 {
    try! engine.define(
        owner: .client(UInt64(c + 1)), regions: [], recognizers: taps("c\(c)"), at: Timestamp(microseconds: 0),
        into: &events)
}
let cycle = FrameCycle(fingers: 1)
engine.addDevice(cycle.device)
if args[1] == "define" {
    for i in 0..<n {
        let next = makeSet(engine, i)
        installSet(&engine, next, &events)
        events.removeAll(keepingCapacity: true)
    }
} else {
    for i in 0..<n {
        var frame = cycle.frames[i % cycle.frames.count]
        frame.time = Timestamp(microseconds: frame.time.microseconds + Int64(i / cycle.frames.count) * cycle.period)
        engine.process(frame, into: &events)
        events.removeAll(keepingCapacity: true)
    }
}
print(engine.recognizerSummaries.count)
