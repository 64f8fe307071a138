import Testing

@testable import GestureServer

/// The per-client queue on its own: order, coalescing of updates, the bound.
@Suite struct OutboundQueueTests {
    typealias Queue = OutboundQueue<String>
    static let pan = Queue.StreamKey.gesture(name: "pan", device: "event5")
    static let pinch = Queue.StreamKey.gesture(name: "pinch", device: "event5")

    static func drain(_ queue: inout Queue) -> [String] {
        var out: [String] = []
        while let line = queue.dequeue() { out.append(line) }
        return out
    }

    @Test func `messages leave in the order they came`() {
        var queue = Queue(limit: 10, byteLimit: .max)
        for i in 0..<5 { #expect(queue.enqueue("m\(i)", stream: nil, isUpdate: false) == .queued) }
        #expect(Self.drain(&queue) == ["m0", "m1", "m2", "m3", "m4"])
        #expect(queue.isEmpty)
    }

    @Test func `an update replaces the waiting update of its stream and moves to the end`() {
        var queue = Queue(limit: 10, byteLimit: .max)
        _ = queue.enqueue("pan began", stream: Self.pan, isUpdate: false)
        _ = queue.enqueue("pan changed 1", stream: Self.pan, isUpdate: true)
        _ = queue.enqueue("pinch changed 1", stream: Self.pinch, isUpdate: true)
        #expect(queue.enqueue("pan changed 2", stream: Self.pan, isUpdate: true) == .coalesced)
        #expect(queue.count == 3)
        #expect(Self.drain(&queue) == ["pan began", "pinch changed 1", "pan changed 2"])
    }

    @Test func `any other message of the stream ends the run of updates that may merge`() {
        var queue = Queue(limit: 10, byteLimit: .max)
        _ = queue.enqueue("pan changed 1", stream: Self.pan, isUpdate: true)
        _ = queue.enqueue("pan ended", stream: Self.pan, isUpdate: false)
        _ = queue.enqueue("pan began", stream: Self.pan, isUpdate: false)
        #expect(queue.enqueue("pan changed 2", stream: Self.pan, isUpdate: true) == .queued)
        #expect(Self.drain(&queue) == ["pan changed 1", "pan ended", "pan began", "pan changed 2"])
    }

    @Test func `a full queue overflows and refuses the message`() {
        var queue = Queue(limit: 3, byteLimit: .max)
        for i in 0..<3 { #expect(queue.enqueue("m\(i)", stream: nil, isUpdate: false) == .queued) }
        #expect(queue.enqueue("m3", stream: nil, isUpdate: false) == .overflow)
        #expect(queue.count == 3)
        #expect(Self.drain(&queue) == ["m0", "m1", "m2"])
    }

    @Test func `a full queue still takes an update that replaces one`() {
        var queue = Queue(limit: 2, byteLimit: .max)
        _ = queue.enqueue("m0", stream: nil, isUpdate: false)
        _ = queue.enqueue("pan changed 1", stream: Self.pan, isUpdate: true)
        #expect(queue.enqueue("pan changed 2", stream: Self.pan, isUpdate: true) == .coalesced)
        #expect(Self.drain(&queue) == ["m0", "pan changed 2"])
    }

    @Test func `storage stays bounded however long a client stalls`() {
        var queue = Queue(limit: 8, byteLimit: .max)
        _ = queue.enqueue("first", stream: nil, isUpdate: false)
        for i in 0..<100_000 {
            #expect(queue.enqueue("pan changed \(i)", stream: Self.pan, isUpdate: true) != .overflow)
            #expect(queue.storage <= 2 * queue.limit + 80)
        }
        #expect(Self.drain(&queue) == ["first", "pan changed 99999"])
    }

    @Test func `the bytes waiting are bounded: the message that finds the limit reached overflows`() {
        var queue = Queue(limit: 100, byteLimit: 10)
        #expect(queue.enqueue("12345", stream: nil, isUpdate: false) == .queued)
        #expect(queue.enqueue("1234", stream: nil, isUpdate: false) == .queued)
        #expect(queue.bytes == 9)
        // Under the limit: one more goes in, however big.
        #expect(queue.enqueue("123456789", stream: nil, isUpdate: false) == .queued)
        #expect(queue.bytes == 18)
        #expect(queue.enqueue("1", stream: nil, isUpdate: false) == .overflow)
        #expect(queue.count == 3)
    }

    @Test func `coalescing and sending give the bytes back, and closing gives back everything`() {
        var queue = Queue(limit: 100, byteLimit: 1000)
        _ = queue.enqueue("pan changed 1", stream: Self.pan, isUpdate: true)
        _ = queue.enqueue("pan changed 22", stream: Self.pan, isUpdate: true)
        #expect(queue.bytes == "pan changed 22".utf8.count)
        _ = queue.enqueue("reply", stream: nil, isUpdate: false, isReply: true)
        #expect(queue.dequeue() == "pan changed 22")
        #expect(queue.bytes == 5)
        queue.removeAll()
        #expect(queue.bytes == 0 && queue.count == 0 && queue.replies == 0 && queue.storage == 0)
    }
}

extension String: QueuedLine {
    public var queuedBytes: Int { utf8.count }
}
