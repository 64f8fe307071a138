import NIOCore
import TestSupport
import Testing

@testable import GestureLogging

/// The rate limit on repeated warnings (LogThrottle.swift), in virtual time.
@Suite struct LogThrottleTests {
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test func `a cause gets its burst per interval, and the next line says how many were left out`() {
        var limit = LogRateLimit(burst: 3, interval: .seconds(10))
        let verdicts = (0..<10).map { limit.admit("refused", at: Self.start + .milliseconds(Int64($0))) }
        #expect(verdicts == Array(repeating: .log(suppressed: 0), count: 3) + Array(repeating: .suppress, count: 7))
        #expect(limit.admit("refused", at: Self.start + .seconds(10)) == .log(suppressed: 7))
        #expect(limit.admit("refused", at: Self.start + .seconds(11)) == .log(suppressed: 0))
    }

    @Test func `causes are counted apart`() {
        var limit = LogRateLimit(burst: 1, interval: .seconds(10))
        #expect(limit.admit("a", at: Self.start) == .log(suppressed: 0))
        #expect(limit.admit("a", at: Self.start) == .suppress)
        #expect(limit.admit("b", at: Self.start) == .log(suppressed: 0))
    }

    /// For any sequence of lines: no cause logs more than its burst in a window (so no more than
    /// twice its burst in any interval: the end of one window and the start of the next), and
    /// every line is either logged or counted in the `suppressed` of a later logged line of its
    /// cause (but those after the last logged one, which no line has reported yet).
    @Test func `nothing is lost without being counted, and no window exceeds its burst`() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        var limit = LogRateLimit(burst: 4, interval: .milliseconds(100))
        var time = Self.start
        var logged: [String: [NIODeadline]] = [:]
        var reported: [String: Int] = [:]
        var suppressedSinceLog: [String: Int] = [:]
        var total: [String: Int] = [:]
        for _ in 0..<20_000 {
            time = time + .microseconds(Int64.random(in: 0...30_000, using: &rng))
            let cause = ["a", "b", "c"].randomElement(using: &rng)!
            total[cause, default: 0] += 1
            switch limit.admit(cause, at: time) {
            case .log(let suppressed):
                logged[cause, default: []].append(time)
                reported[cause, default: 0] += suppressed
                suppressedSinceLog[cause] = 0
            case .suppress:
                suppressedSinceLog[cause, default: 0] += 1
            }
        }
        for (cause, times) in logged {
            let accounted = times.count + reported[cause, default: 0] + suppressedSinceLog[cause, default: 0]
            #expect(accounted == total[cause], "seed \(seed): cause \(cause)")
            // Any 2 × burst + 1 consecutive lines logged span a whole window: at least one interval.
            let span = 2 * limit.burst
            for i in times.indices.dropFirst(span) where times[i] - times[i - span] < .milliseconds(100) {
                Issue.record(
                    "seed \(seed): cause \(cause) logged \(span + 1) lines within \(times[i] - times[i - span])")
                break
            }
        }
    }

    @Test func `a peer's flood does not use up another peer's lines of the same cause`() {
        var limit = LogRateLimit(burst: 2, interval: .seconds(10))
        let flood = (0..<100).map {
            limit.admit("connection", peer: "uid 1001", at: Self.start + .milliseconds(Int64($0)))
        }
        #expect(flood.count { $0 != .suppress } == 2)
        #expect(limit.admit("connection", peer: "uid 1000", at: Self.start + .seconds(1)) == .log(suppressed: 0))
        #expect(limit.admit("connection", peer: "uid 1001", at: Self.start + .seconds(10)) == .log(suppressed: 98))
    }

    @Test func `the table stays bounded however many peers come; the newcomers share a window`() {
        var limit = LogRateLimit(burst: 1, interval: .seconds(10), maxWindows: 8)
        for peer in 0..<8 { _ = limit.admit("connection", peer: "uid \(peer)", at: Self.start) }
        // Full, with windows that still have something to report (their next line says so).
        for peer in 0..<8 { _ = limit.admit("connection", peer: "uid \(peer)", at: Self.start) }
        #expect(limit.admit("connection", peer: "uid 100", at: Self.start) == .log(suppressed: 0))
        #expect(
            limit.admit("connection", peer: "uid 101", at: Self.start) == .suppress, "uid 101 shares uid 100's window")
        #expect(limit.windowCount == 9)
        // An interval on, the windows of peers not heard from since make room: new peers get
        // their own again, up to the bound.
        let later = Self.start + .seconds(20)
        #expect(limit.admit("connection", peer: "uid 1000", at: later) == .log(suppressed: 0))
        #expect(limit.admit("connection", peer: "uid 1001", at: later) == .log(suppressed: 0))
        for peer in 1002..<1100 { _ = limit.admit("connection", peer: "uid \(peer)", at: later) }
        #expect(limit.windowCount <= 9)
    }

    @Test func `text a peer sent is shortened for the log, on a character boundary`() {
        #expect(loggable("http://localhost:8080") == "http://localhost:8080")
        let long = String(repeating: "é", count: 40_000)
        let shortened = loggable(long)
        #expect(shortened.utf8.count < 200)
        #expect(shortened.hasSuffix("… (80000 bytes)"))
        #expect(shortened.hasPrefix(String(repeating: "é", count: 64)))
    }
}
