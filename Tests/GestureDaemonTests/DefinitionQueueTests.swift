import TestSupport
import Testing

@testable import GestureDaemon

/// The definition queue's rules, with no daemon: changes go to the compiler one at a time in
/// the order they came, and a ping is answered once its own connection's changes before it are
/// done — never held by a reload or by another connection's change.
@Suite struct DefinitionQueueTests {
    /// Changes and pings are strings and numbers; connections are numbers (nil: a reload).
    typealias Queue = DefinitionQueue<String, Int, Int>

    static func describe(_ actions: [Queue.Action]) -> [String] {
        actions.map {
            switch $0 {
            case .compile(let change): "compile \(change)"
            case .reply(let ping): "pong \(ping)"
            }
        }
    }

    @Test func `a ping with nothing waiting is answered at once`() {
        var queue = Queue()
        #expect(queue.ping(1, from: 1) == 1)
    }

    @Test func `changes go to the compiler one at a time, and a ping waits for its connection's before it`() {
        var queue = Queue()
        var actions: [Queue.Action] = []
        queue.append("a", from: 1)
        queue.append("b", from: 1)
        #expect(queue.ping(1, from: 1) == nil)
        queue.next(skipping: { _ in false }, into: &actions)
        queue.next(skipping: { _ in false }, into: &actions)
        #expect(Self.describe(actions) == ["compile a"], "one at a time")
        actions = []
        queue.compilerReturned()
        queue.finishFirst(into: &actions)
        #expect(actions.isEmpty, "the ping came after b too")
        queue.append("c", from: 1)
        #expect(queue.ping(2, from: 1) == nil)
        queue.next(skipping: { _ in false }, into: &actions)
        queue.compilerReturned()
        queue.finishFirst(into: &actions)
        queue.next(skipping: { _ in false }, into: &actions)
        #expect(Self.describe(actions) == ["compile b", "pong 1", "compile c"])
        actions = []
        queue.compilerReturned()
        queue.finishFirst(into: &actions)
        #expect(Self.describe(actions) == ["pong 2"])
        #expect(queue.ping(3, from: 1) == 3)
    }

    @Test func `a change with nothing to do is done on the way, freeing the pings behind it`() {
        var queue = Queue()
        var actions: [Queue.Action] = []
        queue.append("nothing", from: 1)
        #expect(queue.ping(1, from: 1) == nil)
        queue.append("x", from: 1)
        queue.next(skipping: { $0 == "nothing" }, into: &actions)
        #expect(Self.describe(actions) == ["pong 1", "compile x"])
    }

    @Test func `a stale result leaves the change first, to be compiled again`() {
        var queue = Queue()
        var actions: [Queue.Action] = []
        queue.append("a", from: 1)
        queue.next(skipping: { _ in false }, into: &actions)
        queue.compilerReturned()
        queue.next(skipping: { _ in false }, into: &actions)
        #expect(Self.describe(actions) == ["compile a", "compile a"])
    }

    /// A reload of the largest configuration took ~0.5 s of the compiler's thread, and every
    /// `ping` queued behind it waited for it (pongs of 650–892 ms in scripts/measure-stall.sh).
    /// A ping now waits for its own connection's changes only.
    @Test func `a ping is answered at once while a reload waits or is being compiled`() {
        var queue = Queue()
        var actions: [Queue.Action] = []
        queue.append("reload", from: nil)
        #expect(queue.ping(1, from: 7) == 1, "the reload waits")
        queue.next(skipping: { _ in false }, into: &actions)
        #expect(Self.describe(actions) == ["compile reload"])
        #expect(queue.isCompiling)
        #expect(queue.ping(2, from: 7) == 2, "the reload is being compiled")
        queue.append("reload again", from: nil)
        #expect(queue.ping(3, from: 8) == 3, "two reloads")
    }

    @Test func `a ping does not wait for another connection's define, only for its own`() {
        var queue = Queue()
        var actions: [Queue.Action] = []
        queue.append("reload", from: nil)
        queue.append("define of 1", from: 1)
        queue.append("define of 2", from: 2)
        #expect(queue.ping(10, from: 3) == 10, "connection 3 has nothing waiting")
        #expect(queue.ping(11, from: 2) == nil, "behind its own define, the last waiting")
        #expect(queue.ping(12, from: 1) == nil, "behind its own define, the second")
        queue.next(skipping: { _ in false }, into: &actions)
        queue.compilerReturned()
        queue.finishFirst(into: &actions)
        #expect(Self.describe(actions) == ["compile reload"], "no ping waited for the reload")
        actions = []
        queue.next(skipping: { _ in false }, into: &actions)
        queue.compilerReturned()
        queue.finishFirst(into: &actions)
        #expect(Self.describe(actions) == ["compile define of 1", "pong 12"], "freed before the ping that came first")
        actions = []
        queue.next(skipping: { _ in false }, into: &actions)
        queue.compilerReturned()
        queue.finishFirst(into: &actions)
        #expect(Self.describe(actions) == ["compile define of 2", "pong 11"])
    }

    /// The rule over random sequences: a ping is answered at once exactly when no change of its
    /// connection waits, and otherwise once the last of them is done; never twice, never lost.
    @Test(arguments: 0..<16)
    func `over random sequences a ping waits for exactly its connection's changes`(run: Int) {
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        var queue = Queue()
        // The model: waiting changes as (number, connection).
        var model: [(number: Int, connection: Int?)] = []
        var number = 0
        var heldFor: [Int: Int] = [:]  // ping → the number of the change it waits for
        var answered: Set<Int> = []
        var nextPing = 0
        var compiling = false
        for _ in 0..<400 {
            var actions: [Queue.Action] = []
            switch rng.next() % 4 {
            case 0:
                let connection: Int? = rng.next() % 4 == 0 ? nil : Int(rng.next() % 5)
                number += 1
                queue.append("\(number)", from: connection)
                model.append((number, connection))
            case 1:
                let connection = Int(rng.next() % 5)
                nextPing += 1
                let mine = model.last { $0.connection == connection }
                let got = queue.ping(nextPing, from: connection)
                #expect((got == nil) == (mine != nil), "seed 0x\(String(seed, radix: 16))")
                if let got { answered.insert(got) } else { heldFor[nextPing] = mine!.number }
            case 2:
                queue.next(skipping: { _ in false }, into: &actions)
                if !model.isEmpty { compiling = true }
            default:
                guard compiling else { continue }
                compiling = false
                queue.compilerReturned()
                let finished = model.removeFirst().number
                queue.finishFirst(into: &actions)
                let freed = actions.compactMap { action -> Int? in
                    if case .reply(let ping) = action { return ping }
                    return nil
                }
                #expect(
                    Set(freed) == Set(heldFor.filter { $0.value == finished }.keys),
                    "seed 0x\(String(seed, radix: 16))")
                #expect(freed == freed.sorted(), "in the order they came; seed 0x\(String(seed, radix: 16))")
                for ping in freed {
                    #expect(answered.insert(ping).inserted, "answered once; seed 0x\(String(seed, radix: 16))")
                    heldFor[ping] = nil
                }
            }
        }
        #expect(answered.count + heldFor.count == nextPing, "seed 0x\(String(seed, radix: 16))")
        #expect(nextPing > 50, "the sequence reached pings")
    }
}
