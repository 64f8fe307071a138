import NIOCore
import NIOWebSocket

/// SwiftNIO's `WebSocketFrameDecoder`, which does the decoding, with the frames it would refuse
/// skipped instead of ending all decoding. SwiftNIO's decoder throws on a frame over the size
/// limit, a fragmented control frame or a control frame over 125 bytes, and its
/// `ByteToMessageHandler` then reads nothing more: the page's answer to the server's close frame,
/// which comes after the rest of the refused frame, was never seen, and the connection (with its
/// per-peer slot) stayed until the close timeout. This reader checks each frame's header before
/// the decoder takes it, raises the refusal as SwiftNIO's own error (``WebSocketLineCodec``
/// answers it and closes), skips that frame's bytes as they arrive, and goes on decoding the
/// frames after it.
///
/// Once the server has sent its close frame (``closing``), only the page's close frames are
/// decoded: every other frame is skipped on its header, so a page that goes on sending (the rest
/// of a message of megabytes, in fragments of 64 bytes) is read to its answer at the cost of a
/// header a frame, and the connection and its per-peer slot go soon after.
final class WebSocketFrameReader: ByteToMessageDecoder {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = WebSocketFrame

    private let decoder: WebSocketFrameDecoder
    private let maxFrameSize: Int
    /// Bytes of the frame the decoder has begun, not yet read (nil: it is between frames).
    private var inFrame: Int?
    /// Bytes of a refused frame still to skip.
    private var skipping = 0
    /// The server's close frame is out (``WebSocketLineCodec``): frames but close frames are skipped.
    var closing = false

    init(maxFrameSize: Int) {
        decoder = WebSocketFrameDecoder(maxFrameSize: maxFrameSize)
        self.maxFrameSize = maxFrameSize
    }

    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if skipping > 0 {
            let skipped = min(skipping, buffer.readableBytes)
            buffer.moveReaderIndex(forwardBy: skipped)
            skipping -= skipped
            return skipping == 0 ? .continue : .needMoreData
        }
        if inFrame == nil {
            guard let header = Header(buffer) else { return .needMoreData }
            if let refusal = header.refusal(maxFrameSize: maxFrameSize) {
                skipping = header.frameBytes
                context.fireErrorCaught(refusal)
                return .continue
            }
            if closing && header.opcode != Header.close {
                skipping = header.frameBytes
                return .continue
            }
            inFrame = header.frameBytes
        }
        let start = buffer.readerIndex
        let state = try decoder.decode(context: context, buffer: &buffer)
        inFrame! -= buffer.readerIndex - start
        if inFrame == 0 { inFrame = nil }
        return state
    }

    func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A connection's end with part of a frame read: nothing more to make of it.
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }

    /// A frame's header (RFC 6455 5.2), read without taking it from the buffer.
    struct Header {
        static let close: UInt8 = 0x8

        var fin: Bool
        var opcode: UInt8
        /// Of the payload, as the header says.
        var length: UInt64
        /// The header's own bytes: 2, the extended length's 2 or 8, the mask's 4.
        var size: Int

        /// Nil until the buffer holds the header's length field.
        init?(_ buffer: ByteBuffer) {
            guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
                let second = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self)
            else { return nil }
            fin = first & 0x80 != 0
            opcode = first & 0x0F
            let mask = second & 0x80 != 0 ? 4 : 0
            switch second & 0x7F {
            case 126:
                guard let word = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt16.self) else { return nil }
                length = UInt64(word)
                size = 4 + mask
            case 127:
                guard let word = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt64.self) else { return nil }
                length = word
                size = 10 + mask
            case let short:
                length = UInt64(short)
                size = 2 + mask
            }
        }

        /// The header and the payload (as many as an `Int` counts).
        var frameBytes: Int {
            guard length <= UInt64(Int.max - size) else { return Int.max }
            return size + Int(length)
        }

        /// What SwiftNIO's decoder would throw for this frame (nil: it takes it).
        func refusal(maxFrameSize: Int) -> NIOWebSocketError? {
            if length > UInt64(maxFrameSize) { return .invalidFrameLength }
            let isControl = opcode & 0x08 != 0
            if isControl && !fin { return .fragmentedControlFrame }
            if isControl && length > 125 { return .multiByteControlFrameLength }
            return nil
        }
    }
}
