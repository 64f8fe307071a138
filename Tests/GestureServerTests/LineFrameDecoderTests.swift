import NIOCore
import Testing

@testable import GestureServer

/// Line framing on its own: no sockets, exact control of how bytes arrive.
@Suite struct LineFrameDecoderTests {
    enum Frame: Equatable {
        case line(String)
        case tooLong
        /// Only the WebSocket codec makes these: one here is a defect of the decoder.
        case notUTF8
    }

    /// Feeds `chunks` one by one, as `read(2)` would bring them.
    static func frames(_ chunks: [[UInt8]], maxLength: Int = 8, end: Bool = false) -> [Frame] {
        var decoder = LineFrameDecoder(maxLength: maxLength)
        var buffer = ByteBuffer()
        var out: [Frame] = []
        func take(_ frame: LineFrame) {
            switch frame {
            case .line(let line): out.append(.line(String(buffer: line)))
            case .tooLong: out.append(.tooLong)
            case .notUTF8: out.append(.notUTF8)
            }
        }
        for chunk in chunks {
            buffer.writeBytes(chunk)
            while let frame = decoder.next(&buffer) { take(frame) }
        }
        if end, let frame = decoder.last(&buffer) { take(frame) }
        return out
    }

    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test func `splits lines and drops a carriage return before the newline`() {
        #expect(Self.frames([Self.bytes("a\nbc\r\n\nd")]) == [.line("a"), .line("bc"), .line("")])
    }

    @Test func `joins a line that arrives byte by byte`() {
        let chunks = Self.bytes("abcdefgh\n").map { [$0] }
        #expect(Self.frames(chunks) == [.line("abcdefgh")])
    }

    @Test func `skips an over-long line up to its newline and carries on`() {
        let frames = Self.frames([Self.bytes("0123456"), Self.bytes("789abcdef"), Self.bytes("xyz\nok\n")])
        #expect(frames == [.tooLong, .line("ok")])
    }

    @Test func `reports an over-long line that arrives in one piece`() {
        #expect(Self.frames([Self.bytes("0123456789\nok\n")]) == [.tooLong, .line("ok")])
    }

    @Test func `a last line without a newline counts at end of input`() {
        #expect(Self.frames([Self.bytes("a\nlast")], end: true) == [.line("a"), .line("last")])
    }
}
