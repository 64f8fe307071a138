import EvdevValues
import GestureLogging
import GestureProtocol
import Logging
import NIOCore
import Testing
import TouchValues

@testable import GestureServer

/// A recorder that never reads (docs/PROTOCOL.md §9): what the daemon keeps for it is bounded in
/// bytes, and given back when it goes. The server's core and a session with no sockets: the
/// connection is ``StalledLink``, whose peer takes nothing.
@Suite struct RecorderQueueTests {
    /// A connection whose peer reads nothing: never writable, so everything the session sends
    /// waits in its queue; it keeps the last message the session closed it with.
    final class StalledLink: SessionLink {
        var isWritable: Bool { false }
        private(set) var lastMessage: String?
        private(set) var closing = false
        func write(_ line: ByteBuffer) {}
        func flush() {}
        func close(after last: ByteBuffer?, deadline: NIODeadline) {
            closing = true
            lastMessage = last.map { String(buffer: $0) }
        }
        func closeNoLater(than deadline: NIODeadline) {}
        func logConnected(_ id: ClientID, logger: Logger, throttle: LogThrottle) {}
        var logPeer: String { "test" }
        func refusedMessageAnswered() {}
        func nextFrame() -> LineFrame? { nil }
        func setReading(_ reading: Bool) {}
        var peerCredentials: PeerCredentials? { nil }
    }

    /// One read of a panel: 100 events, a `raw` line of ~4 KB.
    static let read = (0..<100).map { k in
        InputEvent(time: Timestamp(microseconds: Int64(k)), type: 3, code: 0x35, value: Int32(10_000 + k))
    }

    @Test func `a recorder that never reads overflows on its queue's bytes, and its memory goes with it`() throws {
        weak var released: ClientSession?
        let mailbox = try Mailbox()
        let core = ServerCore(
            configuration: .init(listener: .path("/unused"), daemonVersion: "t"), delegate: nil, mailbox: mailbox,
            logger: Logger(label: "test"))
        let limits = core.limits
        let link = StalledLink()
        var encoder = LineEncoder()
        let lineBytes = try encoder.encode(.raw(RawMessage(device: "event5", events: Self.read))).count
        var published = 0
        try {
            let session = ClientSession(core: core, link: link, transport: .unixSocket(user: 1000))
            released = session
            session.start()
            let client = try #require(session.id)
            // Each read of the panel as the input thread publishes it, until the session gives up.
            while !link.closing && published < limits.maxQueuedMessages {
                var batch: [Publication] = [.raw(RawMessage(device: "event5", events: Self.read), client: client)]
                core.publish(draining: &batch)
                published += 1
                // At most the limit and the line that reached it (each in storage of its own).
                #expect(session.queuedBytes <= limits.maxQueuedBytes + 2 * lineBytes)
            }
            #expect(link.closing, "a recorder holding \(published) lines was not disconnected")
            #expect(link.lastMessage?.contains(#""code":"overflow""#) == true)
            // The bytes decided, long before the message limit: the lines that fit, the one that
            // reached the limit, the one refused.
            #expect(published <= limits.maxQueuedBytes / lineBytes + 2, "\(published) lines of \(lineBytes) bytes")
            #expect(published < limits.maxQueuedMessages / 4, "\(published) lines of \(lineBytes) bytes")
            #expect(session.queuedBytes == 0, "the backlog outlives the decision to close")
            // The transport says the connection is gone.
            session.closed()
            #expect(core.statistics(refusedByGate: 0).unix.connected == 0)
            #expect(core.statistics(refusedByGate: 0).unix.overflowed == 1)
        }()
        for job in mailbox.take() { job.run() }
        #expect(released == nil, "the session outlives its connection")
    }
}
