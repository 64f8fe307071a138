import GestureMetrics
import GestureProtocol
import NIOCore
import Testing

@testable import GestureServer

/// `status` from one snapshot for the requests within 100 ms of it: the rule on its own, time
/// passed in, and through a server.
@Suite struct StatusShareTests {
    typealias Share = StatusShare<Int>

    static func status(at time: Double) -> Share.Answer {
        .success(
            StatusMessage(
                configuration: .init(file: nil, loaded: 0), panels: [], clients: [],
                metrics: MetricsSnapshot(version: "t", startTime: 0, time: time, configurationLoaded: 0)))
    }

    /// What the share says to do with a request, in a word.
    static func next(_ next: Share.Next) -> String {
        switch next {
        case .ask: "ask"
        case .wait: "wait"
        case .answer(let answer): "answer \((try? answer.get())?.metrics.time ?? -1)"
        }
    }

    @Test func `requests while the daemon is asked wait for its one answer; those within 100 ms get it too`() {
        var share = Share()
        let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000)
        #expect(Self.next(share.request(1, at: t0)) == "ask")
        let meanwhile = (2...50).map { Self.next(share.request($0, at: t0 + .milliseconds(Int64($0)))) }
        #expect(meanwhile == Array(repeating: "wait", count: 49))
        #expect(share.arrived(Self.status(at: 1), at: t0 + .milliseconds(60)) == Array(1...50))
        // Within 100 ms of the answer: the same answer, the daemon not asked.
        #expect(Self.next(share.request(51, at: t0 + .milliseconds(159))) == "answer 1.0")
        // Later: a new one.
        #expect(Self.next(share.request(52, at: t0 + .milliseconds(160))) == "ask")
        #expect(share.arrived(Self.status(at: 2), at: t0 + .milliseconds(170)) == [52])
    }

    @Test func `a change the daemon reports is never answered from a status made before it`() {
        var share = Share()
        let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000)
        #expect(Self.next(share.request(1, at: t0)) == "ask")
        _ = share.arrived(Self.status(at: 1), at: t0)
        share.invalidate()
        #expect(Self.next(share.request(2, at: t0 + .milliseconds(1))) == "ask")
        // A change while the daemon makes the next: that one answers those who waited for it,
        // and no one after.
        share.invalidate()
        #expect(share.arrived(Self.status(at: 2), at: t0 + .milliseconds(2)) == [2])
        #expect(Self.next(share.request(3, at: t0 + .milliseconds(3))) == "ask")
    }

    @Test func `status requests taken in one turn make one request to the daemon`() async throws {
        try await ServerFixture.with { f in
            let client = try await f.connect()
            _ = try await client.next(ofType: "hello")
            // One write: the server takes them in one turn, before the daemon can answer.
            let burst = (1...12).map { #"{"type":"status","id":\#($0)}"# + "\n" }.joined()
            try await client.sendRaw(Array(burst.utf8))
            var answered: [RequestID?] = []
            for _ in 1...12 {
                guard case .status(let status) = try await client.next(ofType: "status") else {
                    throw Unexpected("no status")
                }
                answered.append(status.id)
            }
            #expect(answered == (1...12).map { .number($0) })
            let asked = f.delegate!.log.value.calls.filter { $0.hasPrefix("status") }
            #expect(asked.count == 1, "\(asked.count) statuses asked of the daemon for 12 requests")
        }
    }
}
