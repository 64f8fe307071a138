import Foundation
import GestureLogging
import GestureProtocol
import Logging
import TestSupport
import Testing

@testable import GestureServer

/// What the server logs per connection is throttled per peer (LogThrottle.swift): a user that
/// connects in a loop gets its share of the journal, so the daemon's other lines stay within
/// journald's rate limit for the service.
@Suite struct ConnectionLogTests {
    @Test func `a peer connecting in a loop gets its share of the journal, not a line a connection`() async throws {
        let records = Observed<[LogCapture.Record]>([])
        let cycles = 40
        let started = ContinuousClock.now
        try await ServerFixture.with(logger: LogCapture.logger(into: records)) { f in
            for _ in 0..<cycles {
                let client = try await f.connect()
                _ = try await client.next(ofType: "hello")
                await client.close()
            }
            try await f.delegate!.log.wait(for: "every disconnect") { $0.disconnected.count == cycles }
        }
        let lines = records.value.filter { $0.message == "client connected" || $0.message == "client disconnected" }
        // Each of the two lines gets its burst in each interval this test took (one, unless the
        // machine is very slow), for its one peer.
        let limit = LogRateLimit()
        let intervals = Int((ContinuousClock.now - started) / .nanoseconds(limit.interval.nanoseconds)) + 1
        #expect(
            lines.count <= 2 * limit.burst * intervals, "\(lines.count) lines for \(cycles) connections of one user")
        #expect(lines.contains { $0.message == "client connected" && $0.metadata["uid"] == String(getuid()) })
    }
}
