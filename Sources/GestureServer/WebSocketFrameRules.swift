import NIOCore
import NIOWebSocket

/// RFC 6455's rules for one frame a client sends, checked before the frame is joined to others
/// (``NIOWebSocketFrameAggregator`` forgets a fragment's mask and reserved bits) or acted upon.
/// A frame that breaks one fails the connection: the server sends a close frame with the
/// violation's code and reason (``Violation``) and reads nothing more.
///
/// | frame | verdict |
/// |---|---|
/// | not masked | 1002 (§5.1: a server MUST close on an unmasked frame) |
/// | RSV1, RSV2 or RSV3 set | 1002 (§5.2: no extension is negotiated) |
/// | opcode 0x3–0x7 or 0xB–0xF | 1002 (§5.2: reserved) |
/// | close, payload of 1 byte | 1002 (§5.5.1: a body starts with a 2-byte code) |
/// | close, a code no endpoint may send | 1002 (§7.4: 1004–1006, 1015, below 1000, 1016–2999, 5000 and up) |
/// | close, a reason that is not UTF-8 | 1007 (§5.5.1, §8.1) |
/// | anything else | passed on |
///
/// Broken framing the decoder and the aggregator find themselves (a fragmented or long control
/// frame, a continuation with nothing to continue) is put in the same words by ``describe(_:)``,
/// so no close reason names SwiftNIO's internals.
struct WebSocketFrameRules {
    /// Why a frame fails the connection: the close frame's code and reason.
    struct Violation: Error, Equatable {
        var code: WebSocketErrorCode
        var reason: String
    }

    /// The verdict on `frame`: nil when it breaks no rule.
    static func check(_ frame: WebSocketFrame) -> Violation? {
        guard frame.maskKey != nil else {
            return Violation(code: .protocolError, reason: "a client's frames must be masked (RFC 6455 5.1)")
        }
        guard !frame.rsv1, !frame.rsv2, !frame.rsv3 else {
            return Violation(
                code: .protocolError, reason: "reserved bits set, but no extension was negotiated (RFC 6455 5.2)")
        }
        switch frame.opcode {
        case .continuation, .text, .binary, .ping, .pong:
            return nil
        case .connectionClose:
            return checkClose(frame.unmaskedData)
        default:
            return Violation(
                code: .protocolError,
                reason: "opcode \(String(UInt8(webSocketOpcode: frame.opcode), radix: 16)) is reserved (RFC 6455 5.2)")
        }
    }

    /// A close frame's body: empty, or a code an endpoint may send and a UTF-8 reason.
    static func checkClose(_ body: ByteBuffer) -> Violation? {
        var body = body
        guard body.readableBytes != 1 else {
            return Violation(
                code: .protocolError, reason: "a close frame's body is a 2-byte code and a reason (RFC 6455 5.5.1)")
        }
        guard let code = body.readInteger(as: UInt16.self) else { return nil }
        guard isSendable(code) else {
            return Violation(code: .protocolError, reason: "close code \(code) may not be sent (RFC 6455 7.4)")
        }
        guard String(validating: body.readableBytesView, as: UTF8.self) != nil else {
            return Violation(
                code: .dataInconsistentWithMessage, reason: "a close reason must be UTF-8 (RFC 6455 5.5.1)")
        }
        return nil
    }

    /// Whether an endpoint may put `code` in a close frame: the codes RFC 6455 and the IANA
    /// registry define for use (1000–1003, 1007–1014) and those for libraries and applications
    /// (3000–4999). 1004 is reserved, 1005, 1006 and 1015 only ever reported locally.
    static func isSendable(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// The reason a close frame gives for what the decoder or the aggregator refused (nil: the
    /// message was too long, which is answered with `line-too-long` and 1009 instead).
    static func describe(_ error: any Error) -> Violation? {
        let reason: String
        switch error {
        case NIOWebSocketError.invalidFrameLength, NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            return nil
        case NIOWebSocketError.fragmentedControlFrame:
            reason = "a control frame must not be fragmented (RFC 6455 5.5)"
        case NIOWebSocketError.multiByteControlFrameLength:
            reason = "a control frame carries at most 125 bytes (RFC 6455 5.5)"
        case NIOWebSocketFrameAggregator.Error.tooManyFragments:
            reason = "at most \(WebSocketListener.maxFragments) fragments per message"
        case NIOWebSocketFrameAggregator.Error.receivedNewFrameWithoutFinishingPrevious:
            reason = "a message began before the last fragment of the previous one (RFC 6455 5.4)"
        case NIOWebSocketFrameAggregator.Error.didReceiveFragmentBeforeReceivingTextOrBinaryFrame:
            reason = "a continuation frame with no message to continue (RFC 6455 5.4)"
        default:
            reason = "the frames cannot be read"
        }
        return Violation(code: .protocolError, reason: reason)
    }
}

/// Applies ``WebSocketFrameRules`` between SwiftNIO's frame decoder and its aggregator: a frame
/// that breaks a rule is raised as its ``WebSocketFrameRules/Violation`` (the codec closes the
/// connection with it), and nothing after it is passed on but the page's close frames — its
/// answer to the server's, which ends the connection.
final class WebSocketFrameChecker: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    private var failed = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else {
            if unwrapInboundIn(data).opcode == .connectionClose { context.fireChannelRead(data) }
            return
        }
        if let violation = WebSocketFrameRules.check(unwrapInboundIn(data)) {
            failed = true
            context.fireErrorCaught(violation)
            return
        }
        context.fireChannelRead(data)
    }
}
