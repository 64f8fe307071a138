import NIOCore

/// One frame of a client's byte stream.
enum LineFrame {
    /// A line without its `\n` (and without a `\r` before it).
    case line(ByteBuffer)
    /// A line longer than the limit; its bytes were dropped up to and including its `\n`.
    case tooLong
}

/// Splits a client's bytes into lines of at most `maxLength` bytes.
///
/// A longer line is not an end of the conversation: its bytes are discarded as they arrive, up
/// to its newline, and framing resumes after it — so memory stays bounded by `maxLength` however
/// many bytes a client sends without a newline. The scan resumes where it stopped, so a line
/// trickling in byte by byte costs linear time, not quadratic.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = LineFrame

    let maxLength: Int
    /// Bytes at the front of the buffer already known to hold no newline.
    private var scanned = 0
    /// Inside an over-long line: drop bytes until its newline.
    private var discarding = false

    init(maxLength: Int) {
        self.maxLength = maxLength
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        guard let newline = view[(view.startIndex + scanned)...].firstIndex(of: UInt8(ascii: "\n")) else {
            scanned = view.count
            // `maxLength + 1` leaves room for a `\r` that may precede the newline.
            if view.count > maxLength + 1 {
                if !discarding {
                    discarding = true
                    context.fireChannelRead(Self.wrapInboundOut(.tooLong))
                }
                buffer.moveReaderIndex(forwardBy: view.count)
                scanned = 0
            }
            return .needMoreData
        }
        let length = newline - view.startIndex
        scanned = 0
        if discarding {
            buffer.moveReaderIndex(forwardBy: length + 1)
            discarding = false
            return .continue
        }
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") {
            line.moveWriterIndex(to: line.writerIndex - 1)
        }
        context.fireChannelRead(Self.wrapInboundOut(line.readableBytes > maxLength ? .tooLong : .line(line)))
        return .continue
    }

    /// At end of input a last line without its newline still counts (`printf '{…}' | socat`).
    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 {
            if !discarding, let line = buffer.readSlice(length: buffer.readableBytes) {
                context.fireChannelRead(Self.wrapInboundOut(.line(line)))
            }
            buffer.moveReaderIndex(to: buffer.writerIndex)
        }
        discarding = false
        scanned = 0
        return .needMoreData
    }
}
