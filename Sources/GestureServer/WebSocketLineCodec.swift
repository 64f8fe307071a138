import Logging
import NIOCore
import NIOWebSocket

/// Between a WebSocket's frames and ``ClientSession``'s lines: each text (or binary) message in
/// is one request line, each line out is one text message (without its newline). Also the
/// WebSocket's own business: answering pings, pinging an idle peer, the closing handshake, and
/// closing with a code when the peer breaks the rules.
///
/// - A message over the size limit (one frame, or its fragments together; the decoder and the
///   aggregator raise it before buffering it) reaches the session as ``LineFrame/tooLong`` — so
///   the client gets the protocol's `line-too-long` error — and the session then closes the
///   connection with 1009 (message too big): unlike a line, a message cannot be skipped. A text
///   message that is not UTF-8 reaches it as ``LineFrame/notUTF8`` — the client gets
///   `invalid-utf8` — and the connection closes with 1007 (RFC 6455 8.1). Either way the session
///   says when its error is on its way (``Answered``), and nothing the peer sends after that
///   message is read.
/// - A frame that breaks RFC 6455 (``WebSocketFrameRules``, checked before this handler) and
///   broken framing (a fragmented control frame, too many fragments, a continuation with nothing
///   to continue) close with the rule's code (1002, 1007) and reason.
/// - The server's own closes (after `overflow`, `shutdown`, …, each preceded by its `error`)
///   send a close frame (1000) before the connection ends.
///
/// What it writes itself stays bounded whatever the peer does (docs/PROTOCOL.md §9, §13): while
/// the connection cannot take more (SwiftNIO's high water mark), a ping is answered by one pong
/// for the latest ping only (RFC 6455 5.5.3 allows it), sent once the connection drains; the
/// server's own keep-alive ping is not sent then; a close frame is written once.
final class WebSocketLineCodec: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = LineFrame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    private let pingInterval: TimeAmount?
    /// The connection's frame reader, told when the server's close frame is out.
    private let reader: WebSocketFrameReader
    /// How long a close frame may wait for a peer that does not read before the connection is
    /// closed anyway.
    private let closeTimeout: TimeAmount
    private let logger: Logger
    private var closeSent = false
    /// What one read of a closing connection takes, at most (16 such reads a turn of the loop).
    static let closingReadBytes = 256 * 1024
    /// A message was refused (too long, not UTF-8): the connection closes with this once the
    /// session has told why, and nothing more is read.
    private var owedClose: WebSocketFrameRules.Violation?
    /// The latest ping not yet answered, while the connection could not take its pong.
    private var pendingPong: ByteBuffer?
    /// A frame arrived since the last ping.
    private var heardFrom = true
    private var pingTimer: RepeatedTask?

    init(pingInterval: TimeAmount?, closeTimeout: TimeAmount, reader: WebSocketFrameReader, logger: Logger) {
        self.pingInterval = pingInterval
        self.reader = reader
        self.closeTimeout = closeTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let pingInterval else { return }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let context = NIOLoopBound(context, eventLoop: context.eventLoop)
        pingTimer = context.value.eventLoop.scheduleRepeatedTask(initialDelay: pingInterval, delay: pingInterval) { _ in
            handler.value.keepAlive(context: context.value)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        pingTimer?.cancel()
        pingTimer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        pingTimer?.cancel()
        pingTimer = nil
        context.fireChannelInactive()
    }

    private func keepAlive(context: ChannelHandlerContext) {
        guard !closeSent else { return }
        guard heardFrom else {
            logger.info("WebSocket client answered no ping, closing")
            return sendClose(.goingAway, reason: "no pong to the last ping", context: context)
        }
        heardFrom = false
        // A peer that does not read would not see it: it must still say something by the next.
        guard context.channel.isWritable else { return }
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer())), promise: nil)
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        heardFrom = true
        switch frame.opcode {
        case .text, .binary:
            guard !closeSent, owedClose == nil else { return }
            let message = frame.unmaskedData
            if frame.opcode == .text, !Self.isUTF8(message) {
                owedClose = .init(
                    code: .dataInconsistentWithMessage, reason: "a text message must be UTF-8 (RFC 6455 8.1)")
                context.fireChannelRead(wrapInboundOut(.notUTF8(message)))
                return
            }
            context.fireChannelRead(wrapInboundOut(.line(message)))
        case .ping:
            guard !closeSent else { return }
            if context.channel.isWritable {
                context.writeAndFlush(
                    wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
            } else {
                pendingPong = frame.unmaskedData
            }
        case .pong:
            break
        case .connectionClose:
            // The peer's closing handshake: answer it (RFC 6455 §5.5.1) and close.
            guard !closeSent else {
                context.close(promise: nil)
                return
            }
            sendClose(.normalClosure, reason: "", answering: true, context: context)
        default:
            // WebSocketFrameRules let no other opcode through, and the aggregator no continuation.
            sendClose(.protocolError, reason: "unexpected opcode", context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Closing: what the peer still sends is read (and dropped) until it answers or closes,
        // whatever the session asks (``sendClose(_:reason:answering:context:)``).
        if closeSent { context.read() }
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let pong = pendingPong {
            pendingPong = nil
            if !closeSent {
                context.writeAndFlush(
                    wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: pong)), promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Once a message was refused, what the decoder and the aggregator say about the frames
        // behind it (read in the same go, before the session has answered on its thread)
        // changes nothing: the session's error and its close come, and nothing may overtake them.
        guard owedClose == nil else { return }
        if let violation = error as? WebSocketFrameRules.Violation {
            return sendClose(violation.code, reason: violation.reason, context: context)
        }
        guard error is NIOWebSocketError || error is NIOWebSocketFrameAggregator.Error else {
            return context.fireErrorCaught(error)
        }
        guard let violation = WebSocketFrameRules.describe(error) else {
            owedClose = .init(code: .messageTooLarge, reason: "message too big")
            return context.fireChannelRead(wrapInboundOut(.tooLong))
        }
        sendClose(violation.code, reason: violation.reason, context: context)
    }

    private static func isUTF8(_ bytes: ByteBuffer) -> Bool {
        bytes.withUnsafeReadableBytes { String(validating: $0, as: UTF8.self) != nil }
    }

    // MARK: Outbound

    /// The session's word that a refused message (too long, not UTF-8) was answered: close
    /// with the code it owes.
    struct Answered {}

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is Answered else {
            return context.triggerUserOutboundEvent(event, promise: promise)
        }
        if let owedClose { sendClose(owedClose.code, reason: owedClose.reason, context: context) }
        promise?.succeed()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var line = unwrapOutboundIn(data)
        // The line's newline is framing on the Unix socket; a message is framed already.
        if line.readableBytesView.last == UInt8(ascii: "\n") { line.moveWriterIndex(to: line.writerIndex - 1) }
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: line)), promise: promise)
    }

    /// The session (or the server) closes the connection: a close frame goes first, after
    /// what was written before it, then the closing handshake (``sendClose(_:reason:answering:context:)``).
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, !closeSent, context.channel.isActive else {
            return context.close(mode: mode, promise: promise)
        }
        sendClose(.normalClosure, reason: "", context: context)
        context.channel.closeFuture.cascade(to: promise)
    }

    /// Sends a close frame, once; the connection closes after the close timeout at the latest.
    ///
    /// The closing handshake (RFC 6455 7.1): a close frame that answers the peer's completes it,
    /// and the connection closes once it is written. One the server starts is followed by the
    /// end of its output (shutdown(SHUT_WR)), and the connection closes when the peer closes its
    /// side, or answers, or after the close timeout. Closing at once would make the kernel reset
    /// the connection if the peer is still sending (the rest of a message over the limit, say),
    /// and a reset can destroy what the peer has not read yet: the error and the close frame.
    private func sendClose(
        _ code: WebSocketErrorCode, reason: String, answering: Bool = false, context: ChannelHandlerContext
    ) {
        guard !closeSent else { return }
        closeSent = true
        reader.closing = true
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(closeFrame(code, reason: reason))).whenComplete { _ in
            channel.close(mode: answering ? .all : .output, promise: nil)
        }
        context.eventLoop.scheduleTask(in: closeTimeout) { channel.close(promise: nil) }
        // Reads are on demand (`autoRead` off), and the session asks for none once closing: read
        // the page's answer, or the end of its side, from here (``channelReadComplete(context:)``
        // goes on reading). Nothing read now reaches the session, and the reader skips all but
        // close frames on their headers: read in large pieces, so that the answer behind the rest
        // of a message of megabytes is reached soon (this is SwiftNIO's thread, not the input
        // thread), and the connection's per-peer slot goes back with it.
        if let options = channel.syncOptions {
            try? options.setOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.closingReadBytes))
            try? options.setOption(.maxMessagesPerRead, value: 16)
        }
        context.read()
    }

    private func closeFrame(_ code: WebSocketErrorCode, reason: String) -> WebSocketFrame {
        var data = ByteBuffer()
        data.write(webSocketErrorCode: code)
        // A close frame's payload is at most 125 bytes, the code's two included.
        data.writeString(String(decoding: reason.utf8.prefix(123), as: UTF8.self))
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }
}
