import NIOCore

/// One frame of a client's byte stream.
enum LineFrame {
    /// A line without its `\n` (and without a `\r` before it).
    case line(ByteBuffer)
    /// A line longer than the limit; its bytes were dropped up to and including its `\n`.
    case tooLong
    /// A WebSocket text message that is not UTF-8: answered as a line is (`invalid-utf8`), after
    /// which the transport ends the connection (the Unix socket's decoder never makes one).
    case notUTF8(ByteBuffer)
}

/// Splits a client's bytes into lines of at most `maxLength` bytes.
///
/// A longer line is not an end of the conversation: its bytes are discarded as they arrive, up
/// to its newline, and framing resumes after it — so memory stays bounded by `maxLength` however
/// many bytes a client sends without a newline. The scan resumes where it stopped, so a line
/// trickling in byte by byte costs linear time, not quadratic.
///
/// A plain value with no I/O: the Unix socket transport feeds it what each `read(2)` brought.
struct LineFrameDecoder {
    let maxLength: Int
    /// Bytes at the front of the buffer already known to hold no newline.
    private var scanned = 0
    /// Inside an over-long line: drop bytes until its newline.
    private var discarding = false

    init(maxLength: Int) {
        self.maxLength = maxLength
    }

    /// The next frame in `buffer`, its bytes consumed; nil when it needs more bytes (what it
    /// has scanned, or skipped of an over-long line, is remembered).
    mutating func next(_ buffer: inout ByteBuffer) -> LineFrame? {
        while true {
            let view = buffer.readableBytesView
            guard let newline = view[(view.startIndex + scanned)...].firstIndex(of: UInt8(ascii: "\n")) else {
                scanned = view.count
                // `maxLength + 1` leaves room for a `\r` that may precede the newline.
                guard view.count > maxLength + 1 else { return nil }
                buffer.moveReaderIndex(forwardBy: view.count)
                scanned = 0
                if discarding { return nil }
                discarding = true
                return .tooLong
            }
            let length = newline - view.startIndex
            scanned = 0
            if discarding {
                buffer.moveReaderIndex(forwardBy: length + 1)
                discarding = false
                continue
            }
            var line = buffer.readSlice(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            if line.readableBytesView.last == UInt8(ascii: "\r") {
                line.moveWriterIndex(to: line.writerIndex - 1)
            }
            return line.readableBytes > maxLength ? .tooLong : .line(line)
        }
    }

    /// At end of input, after ``next(_:)`` returned nil: a last line without its newline still
    /// counts (`printf '{…}' | socat`). Consumes the rest of `buffer`.
    mutating func last(_ buffer: inout ByteBuffer) -> LineFrame? {
        defer {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            discarding = false
            scanned = 0
        }
        guard buffer.readableBytes > 0, !discarding else { return nil }
        return .line(buffer.readSlice(length: buffer.readableBytes)!)
    }
}
