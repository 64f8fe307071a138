import Testing

@testable import GestureDaemon

/// The definition queue's rules, with no daemon: changes go to the compiler one at a time in
/// the order they came, and a ping is answered once every change before it is done.
@Suite struct DefinitionQueueTests {
    typealias Queue = DefinitionQueue<String, Int>

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
        #expect(queue.ping(1) == 1)
    }

    @Test func `changes go to the compiler one at a time, and a ping waits for those before it`() {
        var queue = Queue()
        var actions: [Queue.Action] = []
        queue.append("a")
        queue.append("b")
        #expect(queue.ping(1) == nil)
        queue.next(skipping: { _ in false }, into: &actions)
        queue.next(skipping: { _ in false }, into: &actions)
        #expect(Self.describe(actions) == ["compile a"], "one at a time")
        actions = []
        queue.compilerReturned()
        queue.finishFirst(into: &actions)
        #expect(actions.isEmpty, "the ping came after b too")
        queue.append("c")
        #expect(queue.ping(2) == nil)
        queue.next(skipping: { _ in false }, into: &actions)
        queue.compilerReturned()
        queue.finishFirst(into: &actions)
        queue.next(skipping: { _ in false }, into: &actions)
        #expect(Self.describe(actions) == ["compile b", "pong 1", "compile c"])
        actions = []
        queue.compilerReturned()
        queue.finishFirst(into: &actions)
        #expect(Self.describe(actions) == ["pong 2"])
        #expect(queue.ping(3) == 3)
    }

    @Test func `a change with nothing to do is done on the way, freeing the pings behind it`() {
        var queue = Queue()
        var actions: [Queue.Action] = []
        queue.append("nothing")
        #expect(queue.ping(1) == nil)
        queue.append("x")
        queue.next(skipping: { $0 == "nothing" }, into: &actions)
        #expect(Self.describe(actions) == ["pong 1", "compile x"])
    }

    @Test func `a stale result leaves the change first, to be compiled again`() {
        var queue = Queue()
        var actions: [Queue.Action] = []
        queue.append("a")
        queue.next(skipping: { _ in false }, into: &actions)
        queue.compilerReturned()
        queue.next(skipping: { _ in false }, into: &actions)
        #expect(Self.describe(actions) == ["compile a", "compile a"])
    }
}
