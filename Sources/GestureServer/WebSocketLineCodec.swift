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
///   connection with 1009 (message too big, ``MessageTooLarge``): unlike a line, a message
///   cannot be skipped. Nothing the peer sends after it is read.
/// - Other framing errors (a fragmented control frame, too many fragments, a continuation with
///   nothing to continue) close with 1002 (protocol error), the reason in the close frame.
/// - The server's own closes (after `overflow`, `shutdown`, …, each preceded by its `error`)
///   send a close frame (1000) before the connection ends.
final class WebSocketLineCodec: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = LineFrame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    private let pingInterval: TimeAmount?
    /// How long a close frame may wait for a peer that does not read before the connection is
    /// closed anyway.
    private let closeTimeout: TimeAmount
    private let logger: Logger
    private var closeSent = false
    /// A message was over the limit: the connection closes (1009) once the session has told why.
    private var refusing = false
    /// A frame arrived since the last ping.
    private var heardFrom = true
    private var pingTimer: RepeatedTask?

    init(pingInterval: TimeAmount?, closeTimeout: TimeAmount, logger: Logger) {
        self.pingInterval = pingInterval
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
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer())), promise: nil)
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        heardFrom = true
        switch frame.opcode {
        case .text, .binary:
            guard !closeSent, !refusing else { return }
            context.fireChannelRead(wrapInboundOut(.line(frame.unmaskedData)))
        case .ping:
            guard !closeSent else { return }
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            break
        case .connectionClose:
            // The peer's closing handshake: answer it (RFC 6455 §5.5.1) and close.
            guard !closeSent else {
                context.close(promise: nil)
                return
            }
            sendClose(.normalClosure, reason: "", context: context)
        default:
            // The aggregator passes no continuation; other opcodes are reserved.
            sendClose(.protocolError, reason: "unknown opcode \(frame.opcode)", context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Once a message was over the limit, what the decoder and the aggregator say about the
        // frames behind it (read in the same go, before the session has answered on its thread)
        // changes nothing: the session's error and its 1009 close come, and nothing may overtake
        // them.
        guard !refusing else { return }
        switch error {
        case NIOWebSocketError.invalidFrameLength, NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            refusing = true
            context.fireChannelRead(wrapInboundOut(.tooLong))
        case NIOWebSocketFrameAggregator.Error.tooManyFragments:
            sendClose(
                .protocolError, reason: "at most \(WebSocketListener.maxFragments) fragments per message",
                context: context)
        case let error as NIOWebSocketError:
            sendClose(.protocolError, reason: "\(error)", context: context)
        case let error as NIOWebSocketFrameAggregator.Error:
            sendClose(.protocolError, reason: "\(error)", context: context)
        default:
            context.fireErrorCaught(error)
        }
    }

    // MARK: Outbound

    /// The session's word that an over-long message was answered: close with 1009.
    struct MessageTooLarge {}

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is MessageTooLarge else {
            return context.triggerUserOutboundEvent(event, promise: promise)
        }
        sendClose(.messageTooLarge, reason: "message too big", context: context)
        promise?.succeed()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var line = unwrapOutboundIn(data)
        // The line's newline is framing on the Unix socket; a message is framed already.
        if line.readableBytesView.last == UInt8(ascii: "\n") { line.moveWriterIndex(to: line.writerIndex - 1) }
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: line)), promise: promise)
    }

    /// The session (or the server) closes the connection: a close frame goes first, after
    /// what was written before it, and the connection closes once it is out (or after the close
    /// timeout).
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, !closeSent, context.channel.isActive else {
            return context.close(mode: mode, promise: promise)
        }
        sendClose(.normalClosure, reason: "", context: context)
        context.channel.closeFuture.cascade(to: promise)
    }

    /// Sends a close frame and closes once it is written, or after the close timeout when the
    /// peer does not read it.
    private func sendClose(_ code: WebSocketErrorCode, reason: String, context: ChannelHandlerContext) {
        guard !closeSent else { return }
        closeSent = true
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(closeFrame(code, reason: reason))).whenComplete { _ in
            channel.close(promise: nil)
        }
        context.eventLoop.scheduleTask(in: closeTimeout) { channel.close(promise: nil) }
    }

    private func closeFrame(_ code: WebSocketErrorCode, reason: String) -> WebSocketFrame {
        var data = ByteBuffer()
        data.write(webSocketErrorCode: code)
        // A close frame's payload is at most 125 bytes, the code's two included.
        data.writeString(String(decoding: reason.utf8.prefix(123), as: UTF8.self))
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }
}
