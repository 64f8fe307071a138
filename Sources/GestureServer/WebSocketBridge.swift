import GestureLogging
import Logging
import NIOCore

/// The last handler of a WebSocket connection's pipeline (after ``WebSocketLineCodec``): the
/// connection's ``ClientSession`` lives on the server thread with every other session (one
/// fan-out, one set of limits), so this hands it what arrives — requests, writability, the end —
/// through the server's ``Mailbox``, one job per read.
///
/// Reads happen on demand (the channel's `autoRead` is off once upgraded): the session asks
/// for requests through its link (``WebSocketLink/setReading(_:)``, a `read()` on the channel,
/// which passes through here), and reads go on only until a read brings at least one message;
/// those are handed over, and nothing more is read until the session asks again. So a client
/// that sends faster than the session takes its requests fills its own socket, not the daemon.
final class WebSocketBridge: ChannelDuplexHandler {
    typealias InboundIn = LineFrame
    typealias OutboundIn = Never

    private let link: WebSocketLink
    private let mailbox: Mailbox
    /// Frames of the current read, handed over together at its end.
    private var arrived: [LineFrame] = []
    /// The session asked for requests and has had none since: a read that brings only part of
    /// a message is followed by another.
    private var wanted = false

    init(link: WebSocketLink, mailbox: Mailbox) {
        self.link = link
        self.mailbox = mailbox
    }

    private var session: ServerThreadBound<ClientSession> { ServerThreadBound(link.session) }

    /// The connection is active already (after its handshake): admit it.
    func handlerAdded(context: ChannelHandlerContext) {
        let session = self.session
        mailbox.post { session.value.start() }
    }

    /// The session's demand (``WebSocketLink/setReading(_:)``).
    func read(context: ChannelHandlerContext) {
        wanted = true
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        arrived.append(frame)
        // The codec raises an over-long message as an error, with no read completing after it.
        if case .tooLong = frame { handOver() }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if !arrived.isEmpty {
            handOver()
        } else if wanted && context.channel.isWritable {
            // Part of a message, or control frames: the session still waits for a request. Not
            // while what was written waits (the pongs to a client's pings, say): reading resumes
            // once it is taken.
            context.read()
        }
        context.fireChannelReadComplete()
    }

    private func handOver() {
        guard !arrived.isEmpty else { return }
        wanted = false
        let frames = ServerThreadBound(arrived)
        arrived = []
        let link = ServerThreadBound(self.link)
        mailbox.post { link.value.arrived(frames.value) }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            let session = self.session
            mailbox.post { session.value.writable() }
            if wanted { context.read() }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        handOver()
        let session = self.session
        mailbox.post { session.value.closed() }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        link.logger.debug("connection error, closing", metadata: ["websocket": "\(link.peer)", "error": "\(error)"])
        context.close(promise: nil)
    }
}

/// A WebSocket connection as its session sees it, on the server thread: lines written are
/// handed to SwiftNIO's loop in one hop per flush (so a batch no WebSocket client wants costs
/// that loop nothing), and closing happens there.
final class WebSocketLink: SessionLink {
    let channel: any Channel
    let origin: String
    let peer: String
    /// The peer's address (all local users share 127.0.0.1: the journal's rate limit is per
    /// address here).
    let logPeer: String
    let logger: Logger
    /// Set right after init (the session needs its link first); the link owns its session.
    var session: ClientSession!
    private var pending: [ByteBuffer] = []
    /// Requests read and handed over, not yet taken by the session.
    private var frames = CircularBuffer<LineFrame>()
    /// A read was asked of the channel and has brought nothing yet.
    private var readRequested = false

    init(channel: any Channel, origin: String, peer: String, logger: Logger) {
        self.channel = channel
        self.origin = origin
        self.peer = peer
        logPeer = channel.remoteAddress?.ipAddress ?? "?"
        self.logger = logger
    }

    /// SwiftNIO's flag (its high and low water marks), readable from any thread.
    var isWritable: Bool { channel.isWritable }

    func write(_ line: ByteBuffer) {
        pending.append(line)
    }

    func flush() {
        guard !pending.isEmpty else { return }
        let lines = pending
        pending.removeAll(keepingCapacity: true)
        let channel = self.channel
        channel.eventLoop.execute {
            for line in lines { channel.write(line, promise: nil) }
            channel.flush()
        }
    }

    /// The codec turns the close into a close frame (1000) after the last line.
    func close(after last: ByteBuffer?, deadline: NIODeadline) {
        let lines = pending + (last.map { [$0] } ?? [])
        pending = []
        let channel = self.channel
        channel.eventLoop.execute {
            for line in lines { channel.write(line, promise: nil) }
            channel.flush()
            channel.close(promise: nil)
            channel.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil) }
        }
    }

    func closeNoLater(than deadline: NIODeadline) {
        let channel = self.channel
        channel.eventLoop.execute {
            channel.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil) }
        }
    }

    func logConnected(_ id: ClientID, logger: Logger, throttle: LogThrottle) {
        throttle.log(
            .info, "client connected", cause: "connection", peer: logPeer,
            metadata: ["client": "\(id)", "websocket": "\(peer)", "origin": "\(origin)"], to: logger)
    }

    /// A page has no credentials the kernel vouches for.
    var peerCredentials: PeerCredentials? { nil }

    /// What a read brought (``WebSocketBridge``), for the session to take.
    func arrived(_ new: [LineFrame]) {
        readRequested = false
        frames.append(contentsOf: new)
        session.pump()
    }

    func nextFrame() -> LineFrame? {
        frames.popFirst()
    }

    /// Asks the channel for one read's worth once the session has taken everything handed over
    /// (one read at a time; a read asked for cannot be taken back, and brings one read's worth).
    func setReading(_ wanted: Bool) {
        guard wanted, frames.isEmpty, !readRequested else { return }
        readRequested = true
        channel.read()
    }

    /// A message cannot be skipped as a line can: after the session's error, close (1009 for
    /// `line-too-long`, 1007 for a text message that is not UTF-8).
    func refusedMessageAnswered() {
        let channel = self.channel
        channel.eventLoop.execute {
            channel.triggerUserOutboundEvent(WebSocketLineCodec.Answered(), promise: nil)
        }
    }
}
