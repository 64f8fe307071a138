import NIOCore
import NIOEmbedded
import Testing

@testable import GestureServer

/// Line framing on an embedded channel: no sockets, exact control of how bytes arrive.
@Suite struct LineFrameDecoderTests {
    enum Frame: Equatable {
        case line(String)
        case tooLong
    }

    static func frames(_ chunks: [[UInt8]], maxLength: Int = 8, end: Bool = false) throws -> [Frame] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maxLength: maxLength)))
        for chunk in chunks { try channel.writeInbound(ByteBuffer(bytes: chunk)) }
        if end { try channel.close().wait() }
        var out: [Frame] = []
        while let frame = try channel.readInbound(as: LineFrame.self) {
            switch frame {
            case .line(let buffer): out.append(.line(String(buffer: buffer)))
            case .tooLong: out.append(.tooLong)
            }
        }
        if !end { _ = try channel.finish() }
        return out
    }

    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test func `splits lines and drops a carriage return before the newline`() throws {
        #expect(try Self.frames([Self.bytes("a\nbc\r\n\nd")]) == [.line("a"), .line("bc"), .line("")])
    }

    @Test func `joins a line that arrives byte by byte`() throws {
        let chunks = Self.bytes("abcdefgh\n").map { [$0] }
        #expect(try Self.frames(chunks) == [.line("abcdefgh")])
    }

    @Test func `skips an over-long line up to its newline and carries on`() throws {
        let frames = try Self.frames([Self.bytes("0123456"), Self.bytes("789abcdef"), Self.bytes("xyz\nok\n")])
        #expect(frames == [.tooLong, .line("ok")])
    }

    @Test func `reports an over-long line that arrives in one piece`() throws {
        #expect(try Self.frames([Self.bytes("0123456789\nok\n")]) == [.tooLong, .line("ok")])
    }

    @Test func `a last line without a newline counts at end of input`() throws {
        #expect(try Self.frames([Self.bytes("a\nlast")], end: true) == [.line("a"), .line("last")])
    }
}
