import GestureProtocol
import NIOCore
import TestSupport
import Testing

@testable import GestureServer

/// The server writes every line into one reused buffer (no allocation for a line written
/// straight out); a line a slow client's queue still holds must stay as it was while the next
/// lines are encoded.
@Suite struct LineStorageTests {
    @Test func `a line kept by a queue is not overwritten by the next`() throws {
        let core = ServerCore(
            configuration: .init(listener: .path("/unused"), daemonVersion: "t"), delegate: nil,
            mailbox: try Mailbox(), logger: ServerFixture.logger)
        var random = LineEncoderTests.Random(rng: SplitMix64(seed: 0x6C69_6E65))
        var kept: [(ByteBuffer, [UInt8])] = []
        for i in 0..<200 {
            let message = ServerMessage.gesture(random.gesture())
            let line = try #require(core.encode(message) as ByteBuffer?)
            #expect(Array(line.readableBytesView) == (try LineEncoderTests.reference(message)))
            // Every tenth line is kept, as a queue keeps it; the rest are dropped, as a line
            // written out is.
            if i % 10 == 0 { kept.append((line, try LineEncoderTests.reference(message))) }
        }
        for (line, expected) in kept { #expect(Array(line.readableBytesView) == expected) }
    }
}
