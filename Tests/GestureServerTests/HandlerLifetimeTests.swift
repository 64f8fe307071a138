import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import GestureClient
@testable import GestureServer

/// A channel handler that keeps its context must let go of it when the
/// pipeline removes it, or the handler, its context and the pipeline keep each other alive —
/// ~450 bytes a connection, forever (DaemonProcessTests "20 000 connections…" measures it on
/// the daemon). Checked here for both handlers that keep one: the server's session and the
/// client library's reply router.
@Suite struct HandlerLifetimeTests {
    @Test func `a closed connection frees the server's session`() throws {
        // The WebSocket bridge is the handler that reaches a session (on the server thread,
        // through the mailbox, whose jobs run here by hand); the session holds its link weakly.
        weak var released: ClientSession?
        try {
            let mailbox = try Mailbox()
            let core = ServerCore(
                configuration: .init(listener: .path("/unused"), daemonVersion: "t"), delegate: nil, mailbox: mailbox,
                logger: ServerFixture.logger)
            let channel = EmbeddedChannel()
            try channel.connect(to: try SocketAddress(unixDomainSocketPath: "/unused")).wait()
            let link = WebSocketLink(channel: channel, origin: "o", peer: "p", logger: ServerFixture.logger)
            let session = ClientSession(
                core: core, link: link, transport: .webSocket(origin: "o", peer: "p", allowsDefine: false, allowsStatus: false))
            link.session = session
            released = session
            try channel.pipeline.syncOperations.addHandler(WebSocketBridge(link: link, mailbox: mailbox))
            for job in mailbox.take() { job.run() }
            #expect(session.isOpen)
            _ = try channel.finish()
            for job in mailbox.take() { job.run() }
            #expect(!session.isOpen)
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
