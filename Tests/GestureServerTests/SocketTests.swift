import Foundation
import GestureEngine
import GestureProtocol
import GestureServer
import Testing

/// Everything on real Unix sockets in temporary directories. Serialized, because one of them
/// counts the process's file descriptors, and they share two CPU cores.
@Suite(.serialized) struct SocketTests {}

extension LineClient {
    /// The connection's `hello` (always its first line).
    func hello() throws -> HelloMessage {
        let first = try #require(received.value.lines.first)
        guard case .hello(let hello) = try JSONDecoder().decode(ServerMessage.self, from: Data(first.utf8)) else {
            throw Unexpected("the first line is not hello: \(first)")
        }
        return hello
    }

    /// Messages up to (not including) the pong of a ping sent now. Only call it once the
    /// messages of interest have been fanned out (see ``SocketTests/fence(_:seq:)``).
    func messagesUntilPong(_ id: String = "fence") async throws -> [ServerMessage] {
        try await send(#"{"type":"ping","id":"\#(id)"}"#)
        var messages: [ServerMessage] = []
        while true {
            let message = try await next()
            if case .pong(.string(id)?) = message { return messages }
            messages.append(message)
        }
    }

    /// The gestures among all lines received so far (after hello and the subscription's ok).
    func gestures() throws -> [GestureMessage] {
        try received.value.lines.compactMap { line in
            if case .gesture(let g) = try JSONDecoder().decode(ServerMessage.self, from: Data(line.utf8)) { return g }
            return nil
        }
    }
}

extension SocketTests {
    /// Waits until `observer` (subscribed to everything) has received the gesture with `seq`: by
    /// then the server has fanned out everything published before it to every connection,
    /// because a batch is fanned out in one go on the server's one event loop.
    static func fence(_ observer: LineClient, seq: UInt64) async throws {
        try await observer.received.wait(for: "gesture #\(seq) at the observer") { received in
            received.lines.contains { $0.contains("\"seq\":\(seq),") }
        }
    }

    @Suite struct Greeting {
        @Test func `hello carries the protocol version, limits and the current devices and recognizers`() async throws {
            let limits = ServerLimits(maxLineBytes: 4096, maxQueuedMessages: 100, maxClients: 9, maxDefinitions: 7)
            try await ServerFixture.with(limits: limits) { f in
                let first = try await f.subscriber()
                let firstHello = try first.hello()
                #expect(firstHello.protocolVersion == GestureProtocol.version)
                #expect(firstHello.daemonVersion == "0.0.0-test")
                #expect(firstHello.limits == limits)
                #expect(firstHello.devices.isEmpty)

                let recognizers = [
                    RecognizerSummary(name: "tap", kind: .tap, owner: .configuration, region: "root"),
                    RecognizerSummary(name: "mine", kind: .swipe, owner: .client(firstHello.client), region: "root"),
                ]
                f.publish([.recognizers(recognizers)])
                f.publish([.device(DeviceMessage(event: .added, device: Sample.device))])
                guard case .device(let added) = try await first.next() else { throw Unexpected("no device message") }
                #expect(added == DeviceMessage(event: .added, device: Sample.device))

                let second = try await f.connect()
                _ = try await second.next(ofType: "hello")
                let secondHello = try second.hello()
                #expect(secondHello.client > firstHello.client)
                #expect(secondHello.devices == [Sample.device])
                #expect(secondHello.recognizers == recognizers)

                f.publish([.device(DeviceMessage(event: .removed, device: Sample.device))])
                guard case .device(let removed) = try await second.next() else { throw Unexpected("no device message") }
                #expect(removed.event == .removed)
                _ = try await first.next(ofType: "device")
                let third = try await f.connect()
                _ = try await third.next(ofType: "hello")
                #expect(try third.hello().devices.isEmpty)
            }
        }
    }

    @Suite struct FanOut {
        /// Must show 1: 100 clients each receive every event, in order, nothing lost.
        @Test func `a hundred clients each receive every event in order`() async throws {
            let clients = 100
            let events = 1000
            try await ServerFixture.with(limits: ServerLimits(maxClients: 128, maxClientsPerPeer: 128)) { f in
                var subscribers: [LineClient] = []
                for _ in 0..<clients { subscribers.append(try await f.subscriber()) }
                let kinds: [GestureKind] = [.tap, .swipe, .shape, .edgeSwipe, .pinch, .rotate, .longPress, .pan]
                var seq: UInt64 = 0
                for _ in 0..<(events / 10) {
                    var batch: [Publication] = []
                    for _ in 0..<10 {
                        seq += 1
                        let kind = kinds[Int(seq) % kinds.count]
                        // No `changed` states: those may be coalesced for a slow reader by design.
                        let state: GestureState = kind.isContinuous ? (seq % 2 == 0 ? .began : .ended) : .recognized
                        batch.append(
                            .gesture(
                                Sample.gesture(seq, name: kind.rawValue, kind: kind, state: state),
                                owner: .configuration))
                    }
                    f.publish(batch)
                }
                for (i, client) in subscribers.enumerated() {
                    try await client.received.wait(for: "all \(events) events at client \(i)") {
                        $0.lines.count >= events + 2
                    }
                    let seqs = try client.gestures().map(\.seq)
                    #expect(seqs == Array(1...UInt64(events)), "client \(i) got \(seqs.count) events")
                }
            }
        }

        /// Must show 1: a client that never reads delays nobody and is cut off at its queue's bound.
        @Test func `a client that never reads is disconnected with overflow and the others lose nothing`() async throws
        {
            let events = 3000
            try await ServerFixture.with(
                limits: ServerLimits(maxQueuedMessages: 64), closeTimeout: .seconds(60)
            ) { f in
                let stalled = try await f.subscriber(reading: false)
                var others: [LineClient] = []
                for _ in 0..<3 { others.append(try await f.subscriber()) }
                for start in stride(from: 1, through: events, by: 50) {
                    f.publish(
                        (start..<start + 50).map { .gesture(Sample.gesture(UInt64($0)), owner: .configuration) })
                    // Paced by the readers, so a reader is never more than one batch (50 < 64)
                    // behind however loaded the machine is: only the stalled client can overflow.
                    for client in others {
                        try await client.received.wait(for: "batch \(start) at a reading client") {
                            $0.lines.count >= start + 49 + 2
                        }
                    }
                }
                for client in others {
                    try await client.received.wait(for: "all events at a reading client") {
                        $0.lines.count >= events + 2
                    }
                    #expect(try client.gestures().map(\.seq) == Array(1...UInt64(events)))
                }

                stalled.startReading()
                try await stalled.waitForEnd()
                let lines = stalled.received.value.lines
                let last = try JSONDecoder().decode(ServerMessage.self, from: Data(try #require(lines.last).utf8))
                guard case .error(let error) = last else { throw Unexpected("the last line is not an error: \(last)") }
                #expect(error.code == .overflow)
                let seqs = try stalled.gestures().map(\.seq)
                #expect(!seqs.isEmpty && seqs.count < events, "the stalled client got \(seqs.count) events")
                #expect(seqs == Array(1...UInt64(seqs.count)), "what it did get is a gap-free prefix")
                try await f.delegate!.log.wait(for: "the stalled client's disconnect") { $0.disconnected.count == 1 }
            }
        }

        @Test func `a slow client gets the newest changed update, coalesced, and every other state`() async throws {
            let updates = 5000
            try await ServerFixture.with(limits: ServerLimits(maxQueuedMessages: 64)) { f in
                let slow = try await f.subscriber(reading: false)
                let observer = try await f.subscriber()
                let pan = { (seq: Int, state: GestureState) in
                    Publication.gesture(
                        Sample.gesture(UInt64(seq), name: "pan", kind: .pan, state: state), owner: .configuration)
                }
                f.publish([pan(1, .began)])
                for start in stride(from: 2, through: updates + 1, by: 100) {
                    f.publish((start..<start + 100).map { pan($0, .changed) })
                }
                f.publish([pan(updates + 2, .ended)])
                try await SocketTests.fence(observer, seq: UInt64(updates + 2))

                slow.startReading()
                let received = try await slow.messagesUntilPong().compactMap { message -> GestureMessage? in
                    if case .gesture(let g) = message { return g }
                    if case .error(let e) = message { Issue.record("unexpected error \(e)") }
                    return nil
                }
                #expect(received.first?.state == .began)
                #expect(received.last?.state == .ended)
                let changed = received.filter { $0.state == .changed }.map(\.seq)
                #expect(changed.count < updates, "coalescing dropped superseded updates")
                #expect(changed.last == UInt64(updates + 1), "the newest update survives")
                #expect(zip(changed, changed.dropFirst()).allSatisfy { $0 < $1 }, "seq stays increasing")
            }
        }

        @Test func `filters pick gestures by name, kind, state, region and device`() async throws {
            try await ServerFixture.with { f in
                let observer = try await f.subscriber()
                let byName = try await f.subscriber(#""gestures":["double-tap"]"#)
                let byKind = try await f.subscriber(#""kinds":["swipe","pinch"]"#)
                let byState = try await f.subscriber(#""states":["began"]"#)
                let byRegion = try await f.subscriber(#""regions":["pad"]"#)
                let byDevice = try await f.subscriber(#""devices":["event9"]"#)
                let none = try await f.subscriber(#""gestures":[]"#)
                let all: [GestureMessage] = [
                    Sample.gesture(1, name: "tap"),
                    Sample.gesture(2, name: "double-tap"),
                    Sample.gesture(3, name: "swipe", kind: .swipe),
                    Sample.gesture(4, name: "pinch", kind: .pinch, state: .began),
                    Sample.gesture(5, name: "tap", region: "pad"),
                    Sample.gesture(6, name: "tap", device: "event9"),
                ]
                f.publish(all.map { .gesture($0, owner: .configuration) })
                try await SocketTests.fence(observer, seq: 6)
                func seqs(_ client: LineClient) async throws -> [UInt64] {
                    try await client.messagesUntilPong().compactMap {
                        if case .gesture(let g) = $0 { g.seq } else { nil }
                    }
                }
                #expect(try await seqs(byName) == [2])
                #expect(try await seqs(byKind) == [3, 4])
                #expect(try await seqs(byState) == [4])
                #expect(try await seqs(byRegion) == [5])
                #expect(try await seqs(byDevice) == [6])
                #expect(try await seqs(none) == [])
            }
        }

        @Test func `raw touches go to touch subscribers of their region only`() async throws {
            try await ServerFixture.with { f in
                let observer = try await f.subscriber()
                let padTouches = try await f.subscriber(#""touches":true,"regions":["pad"]"#)
                let allTouches = try await f.subscriber(#""touches":true,"gestures":[]"#)
                let gesturesOnly = try await f.subscriber()
                f.publish([
                    .touch(Sample.touch(1, id: 4, phase: .began, region: "pad")),
                    .touch(Sample.touch(2, id: 5, phase: .began, region: "root")),
                    .touch(Sample.touch(3, id: 4, phase: .cancelled, region: "pad")),
                    .gesture(Sample.gesture(4), owner: .configuration),
                ])
                try await SocketTests.fence(observer, seq: 4)
                func seqs(_ client: LineClient) async throws -> [String] {
                    try await client.messagesUntilPong().compactMap {
                        switch $0 {
                        case .touch(let t): "t\(t.seq)"
                        case .gesture(let g): "g\(g.seq)"
                        default: nil
                        }
                    }
                }
                #expect(try await seqs(padTouches) == ["t1", "t3"])
                #expect(try await seqs(allTouches) == ["t1", "t2", "t3"])
                #expect(try await seqs(gesturesOnly) == ["g4"])
            }
        }

        @Test func `a client sees a touch land in its own region; others see the configuration's`() async throws {
            try await ServerFixture.with { f in
                func touchSubscriber(_ filters: String) async throws -> (LineClient, Owner) {
                    let client = try await f.connect()
                    guard case .hello(let hello) = try await client.next() else { throw Unexpected("no hello") }
                    try await client.send(#"{"type":"subscribe","id":"sub","touches":true\#(filters)}"#)
                    guard case .ok = try await client.next() else { throw Unexpected("no ok for subscribe") }
                    return (client, .client(hello.client))
                }
                let observer = try await f.subscriber()
                let (owner, ownerID) = try await touchSubscriber("")
                let (ownerFiltered, ownerFilteredID) = try await touchSubscriber(#","regions":["pad"]"#)
                let (other, _) = try await touchSubscriber("")
                let (otherFiltered, _) = try await touchSubscriber(#","regions":["pad"]"#)
                let pad = [
                    ClientRegion(owner: ownerID, name: "pad"), ClientRegion(owner: ownerFilteredID, name: "pad"),
                ]
                f.publish([
                    .touch(Sample.touch(1, id: 4, phase: .began, region: "left"), clientRegions: pad),
                    .touch(Sample.touch(2, id: 5, phase: .began, region: "left")),
                    .gesture(Sample.gesture(3), owner: .configuration),
                ])
                try await SocketTests.fence(observer, seq: 3)
                func seen(_ client: LineClient) async throws -> [String] {
                    try await client.messagesUntilPong().compactMap {
                        if case .touch(let t) = $0 { "t\(t.seq) \(t.region)" } else { nil }
                    }
                }
                #expect(try await seen(owner) == ["t1 pad", "t2 left"])
                #expect(try await seen(ownerFiltered) == ["t1 pad"])
                #expect(try await seen(other) == ["t1 left", "t2 left"])
                #expect(try await seen(otherFiltered) == [])
            }
        }

        @Test func `unsubscribe stops gestures and a new subscribe replaces the old one`() async throws {
            try await ServerFixture.with { f in
                let observer = try await f.subscriber()
                let client = try await f.subscriber(#""kinds":["tap"]"#)
                try await client.send(#"{"type":"unsubscribe","id":7}"#)
                guard case .ok(.number(7)?) = try await client.next() else { throw Unexpected("no ok for unsubscribe") }
                f.publish([.gesture(Sample.gesture(1), owner: .configuration)])
                try await SocketTests.fence(observer, seq: 1)
                #expect(try await client.messagesUntilPong().isEmpty)
                try await client.send(#"{"type":"subscribe","id":8,"kinds":["swipe"]}"#)
                guard case .ok(.number(8)?) = try await client.next() else { throw Unexpected("no ok for subscribe") }
                f.publish([
                    .gesture(Sample.gesture(2), owner: .configuration),
                    .gesture(Sample.gesture(3, name: "swipe", kind: .swipe), owner: .configuration),
                ])
                try await SocketTests.fence(observer, seq: 3)
                let got = try await client.messagesUntilPong().compactMap {
                    if case .gesture(let g) = $0 { g.seq } else { nil }
                }
                #expect(got == [3])
            }
        }

        @Test func `a client that closed its sending side still receives everything`() async throws {
            try await ServerFixture.with { f in
                let client = try await f.subscriber()
                try await client.channel.close(mode: .output)
                f.publish([.gesture(Sample.gesture(1), owner: .configuration)])
                guard case .gesture(let g) = try await client.next() else { throw Unexpected("no gesture") }
                #expect(g.seq == 1)
            }
        }
    }
}
