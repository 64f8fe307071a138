import GestureMQTT
import TestSupport
import Testing

/// An event of `n` bytes of payload on topic `t` (1 byte), numbered by its first payload byte.
func event(_ number: Int, bytes: Int = 10) -> OutgoingMessage {
    OutgoingMessage(
        topic: "t", payload: [UInt8(truncatingIfNeeded: number)] + Array(repeating: 0, count: bytes - 1), qos: 1,
        retain: false)
}

extension OutgoingQueue {
    /// Hands everything the window lets through, with tokens from `token` on; returns them.
    mutating func sendAll(from token: inout Int) -> [(Int, OutgoingMessage)] {
        var sent: [(Int, OutgoingMessage)] = []
        while let m = next() {
            sent.append((token, m))
            self.sent(token: token)
            token += 1
        }
        return sent
    }
}

@Suite("the outgoing queue")
struct OutgoingQueueTests {
    @Test("past max-messages the oldest waiting event is dropped and counted")
    func messagesBound() {
        var q = OutgoingQueue(bounds: QueueBounds(maxMessages: 64, maxBytes: 1 << 20))
        var dropped = 0
        for i in 0..<100 { dropped += q.add(event(i)) }
        #expect(dropped == 36 && q.dropped == 36 && q.count == 64 && q.bytes == 64 * 11)
        var token = 0
        let sent = q.sendAll(from: &token)
        // The newest 64, oldest first, as far as the window goes.
        #expect(sent.map { Int($0.1.payload[0]) } == Array(36..<(36 + OutgoingQueue.window)))
    }

    @Test("past max-bytes the oldest events go until the new one fits; one bigger than the bound is dropped itself")
    func bytesBound() {
        var q = OutgoingQueue(bounds: QueueBounds(maxMessages: 1000, maxBytes: 65536))
        for i in 0..<6 { q.add(event(i, bytes: 10_000)) }
        #expect(q.count == 6 && q.dropped == 0)
        q.add(event(6, bytes: 10_000))
        #expect(q.count == 6 && q.dropped == 1 && q.bytes == 6 * 10_001)
        #expect(q.add(event(7, bytes: 70_000)) == 1)
        #expect(q.count == 6 && q.dropped == 2)
    }

    @Test("a state replaces its waiting value, goes before waiting events, and is never dropped for events")
    func states() {
        var q = OutgoingQueue(bounds: QueueBounds(maxMessages: 64, maxBytes: 1 << 20))
        for i in 0..<64 { q.add(event(i)) }
        q.add(OutgoingMessage(topic: "a", text: "offline", qos: 1, retain: true), kind: .state("availability"))
        q.add(OutgoingMessage(topic: "a", text: "online", qos: 1, retain: true), kind: .state("availability"))
        #expect(q.count == 64 && q.dropped == 1)
        var token = 0
        let sent = q.sendAll(from: &token)
        #expect(sent.first?.1.payload == Array("online".utf8))
        #expect(sent.dropFirst().first?.1.payload.first == 1)
    }

    @Test(
        "in flight are at most the window; done frees; a lost connection sends again what was in flight, first, in order"
    )
    func windowAndLoss() {
        var q = OutgoingQueue(bounds: QueueBounds(maxMessages: 1000, maxBytes: 1 << 20))
        for i in 0..<40 { q.add(event(i)) }
        var token = 100
        let first = q.sendAll(from: &token)
        #expect(first.count == OutgoingQueue.window && q.inFlightCount == OutgoingQueue.window)
        q.done(token: 100)
        q.done(token: 101)
        q.done(token: 9999)
        #expect(q.delivered == 2 && q.count == 38)
        q.connectionLost()
        #expect(q.resent == OutgoingQueue.window - 2 && q.inFlightCount == 0)
        let again = q.sendAll(from: &token)
        #expect(again.map { Int($0.1.payload[0]) } == Array(2..<(2 + OutgoingQueue.window)))
        q.done(token: 105)
        #expect(q.delivered == 2)
    }

    /// The queue's promises over random use (adds, states, sends, acknowledgements in any order,
    /// lost connections): it never holds more than its bounds allow (states aside); the broker
    /// gets events in the order they were added, each at least once unless counted as dropped.
    @Test("property: bounds, order, and every event delivered or counted as dropped")
    func property() {
        for run in 0..<40 {
            let seed = 0x6d71_7474_7175_6575 &+ UInt64(run)
            var rng = SplitMix64(seed: seed)
            let bounds = QueueBounds(
                maxMessages: Int.random(in: 64...200, using: &rng),
                maxBytes: Int.random(in: 65536...200_000, using: &rng))
            var q = OutgoingQueue(bounds: bounds)
            var added = 0
            // What the broker got, in the order it was sent (a resend repeats).
            var sent: [Int] = []
            var inFlight = Set<Int>()
            var token = 0
            var connected = true
            for step in 0..<3000 {
                let context = "seed 0x\(String(seed, radix: 16)), step \(step)"
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<5:
                    var m = event(0, bytes: Int.random(in: 8...3000, using: &rng))
                    m.topic = String(added)
                    q.add(m)
                    added += 1
                case 5:
                    q.add(OutgoingMessage(topic: "s", text: "x", qos: 1, retain: true), kind: .state("s"))
                case 6..<8 where connected:
                    for (t, m) in q.sendAll(from: &token) {
                        inFlight.insert(t)
                        if let n = Int(m.topic) { sent.append(n) }
                    }
                case 8 where !inFlight.isEmpty:
                    let t = inFlight.randomElement(using: &rng)!
                    inFlight.remove(t)
                    q.done(token: t)
                case 9:
                    connected.toggle()
                    if !connected {
                        q.connectionLost()
                        inFlight.removeAll()
                    }
                default:
                    break
                }
                #expect(q.count <= bounds.maxMessages + 1 && q.bytes <= bounds.maxBytes + 10, "\(context)")
                #expect(q.inFlightCount <= OutgoingQueue.window, "\(context)")
            }
            // Drain, over a new connection: every event still held reaches the broker.
            q.connectionLost()
            inFlight.removeAll()
            while q.count > 0 {
                for (t, m) in q.sendAll(from: &token) {
                    if let n = Int(m.topic) { sent.append(n) }
                    q.done(token: t)
                }
            }
            let context = "seed 0x\(String(seed, radix: 16))"
            var firsts: [Int] = []
            var seen = Set<Int>()
            for n in sent where seen.insert(n).inserted { firsts.append(n) }
            #expect(firsts == firsts.sorted(), "\(context)")
            #expect(
                firsts.count + q.dropped == added,
                "\(context): \(firsts.count) delivered, \(q.dropped) dropped, \(added) added")
        }
    }
}
