import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import GestureClient
@testable import GestureServer

/// Issue 12, defect 4: a channel handler that keeps its context must let go of it when the
/// pipeline removes it, or the handler, its context and the pipeline keep each other alive —
/// ~450 bytes a connection, forever (DaemonProcessTests "20 000 connections…" measures it on
/// the daemon). Checked here for both handlers that keep one: the server's session and the
/// client library's reply router.
@Suite struct HandlerLifetimeTests {
    @Test func `a closed connection frees the server's session`() throws {
        weak var released: ClientSession?
        try {
            let core = ServerCore(
                configuration: .init(listener: .path("/unused"), daemonVersion: "t"), delegate: nil,
                logger: ServerFixture.logger)
            let session = ClientSession(core: core)
            released = session
            let channel = EmbeddedChannel(handler: session)
            try channel.connect(to: try SocketAddress(unixDomainSocketPath: "/unused")).wait()
            _ = try channel.finish()
        }()
        #expect(released == nil)
    }

    @Test func `a closed connection frees the client library's reply router`() throws {
        weak var released: ReplyRouter?
        try {
            let router = ReplyRouter()
            released = router
            let channel = EmbeddedChannel(handler: router)
            _ = try channel.finish()
        }()
        #expect(released == nil)
    }
}
