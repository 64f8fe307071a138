import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import GestureServer

/// The handlers after SwiftNIO's frame decoder (WebSocketFrameRules.swift, WebSocketLineCodec.swift)
/// on an `EmbeddedChannel`: no socket, no session, no timing.
///
/// The codec's rule for a message over the limit: the session says `line-too-long`, then closes
/// with 1009, and nothing the peer sends after the message is read.
/// The session answers on the server's thread, later than the event loop reads on: a complaint
/// of the aggregator or the decoder about the frames behind the message must not close the
/// connection first. It did (a 1002 close with `didReceiveFragmentBeforeReceivingTextOrBinaryFrame`
/// overtook the error) whenever the fragments after the limit arrived in the same read — one run
/// of the socket test "a message over the limit gets line-too-long, then close 1009" in a loaded
/// full suite, 2026-11-25.
@Suite struct WebSocketLineCodecTests {
    /// The pipeline the endpoint builds after the handshake, without the session behind it.
    static func channel(limit: Int = 1024) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try WebSocketListener.addMessageHandlers(
            to: channel.pipeline.syncOperations, reader: WebSocketFrameReader(maxFrameSize: limit),
            maxMessageBytes: limit, pingInterval: nil, closeTimeout: .seconds(5), logger: ServerFixture.logger)
        return channel
    }

    /// Bytes of a masked frame, its length as the header says it (the payload may follow later).
    static func wire(_ opcode: UInt8, fin: Bool = true, length: Int, payload: [UInt8] = []) -> ByteBuffer {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        switch length {
        case ..<126: bytes.append(0x80 | UInt8(length))
        case ..<65_536: bytes += [UInt8(0x80 | 126), UInt8(length >> 8), UInt8(length & 0xFF)]
        default:
            bytes.append(0x80 | 127)
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: length >> ($0 * 8)) }
        }
        return ByteBuffer(bytes: bytes + [0, 0, 0, 0] + payload)
    }

    /// SwiftNIO's decoder read nothing after a frame over the limit, so the page's answer to the
    /// close behind it was never seen. The reader refuses the frame with SwiftNIO's error, skips
    /// it, and decodes what follows; once closing, only close frames.
    @Test func `the frame reader skips a refused frame and the frames after it once closing, and reads the close`()
        throws
    {
        let reader = WebSocketFrameReader(maxFrameSize: 1024)
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(reader))
        #expect(throws: NIOWebSocketError.invalidFrameLength) {
            try channel.writeInbound(Self.wire(0x1, length: 2000, payload: Array(repeating: 0, count: 1000)))
        }
        // The rest of it, then a text frame: read again.
        try channel.writeInbound(ByteBuffer(bytes: Array(repeating: 0, count: 1000)))
        try channel.writeInbound(Self.wire(0x1, length: 2, payload: [0, 0]))
        #expect(try channel.readInbound(as: WebSocketFrame.self)?.opcode == .text)
        #expect(throws: NIOWebSocketError.fragmentedControlFrame) {
            try channel.writeInbound(Self.wire(0x9, fin: false, length: 1, payload: [0]))
        }
        reader.closing = true
        for _ in 0..<100 { try channel.writeInbound(Self.wire(0x0, fin: false, length: 64, payload: Array(repeating: 0, count: 64))) }
        try channel.writeInbound(Self.wire(0x8, length: 2, payload: [0, 0]))
        #expect(try channel.readInbound(as: WebSocketFrame.self)?.opcode == .connectionClose, "only the close")
        #expect(try channel.readInbound(as: WebSocketFrame.self) == nil)
    }

    static let mask = WebSocketMaskingKey([0x37, 0xFA, 0x21, 0x3D] as [UInt8])!

    /// A frame as a client sends it: masked.
    static func frame(
        _ opcode: WebSocketOpcode, fin: Bool = true, _ payload: [UInt8], rsv1: Bool = false, masked: Bool = true
    ) -> WebSocketFrame {
        var data = ByteBuffer(bytes: payload)
        if masked { data.webSocketMask(mask) }
        return WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, maskKey: masked ? mask : nil, data: data)
    }

    static func frame(_ opcode: WebSocketOpcode, fin: Bool, bytes: Int) -> WebSocketFrame {
        frame(opcode, fin: fin, Array(repeating: UInt8(ascii: " "), count: bytes))
    }

    /// What reached the session: `true` for each `tooLong`, `false` for each line.
    static func inbound(_ channel: EmbeddedChannel) throws -> [Bool] {
        var frames: [Bool] = []
        while let frame = try channel.readInbound(as: LineFrame.self) {
            switch frame {
            case .tooLong: frames.append(true)
            case .line, .notUTF8: frames.append(false)
            }
        }
        return frames
    }

    /// The frames the codec wrote.
    static func outbound(_ channel: EmbeddedChannel) throws -> [WebSocketFrame] {
        var frames: [WebSocketFrame] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) { frames.append(frame) }
        return frames
    }

    static func closeCode(_ frame: WebSocketFrame?) -> WebSocketErrorCode? {
        guard let frame, frame.opcode == .connectionClose else { return nil }
        var data = frame.unmaskedData
        return data.readWebSocketErrorCode()
    }

    static func closeReason(_ frame: WebSocketFrame?) -> String {
        guard var data = frame?.unmaskedData, data.readableBytes >= 2 else { return "" }
        data.moveReaderIndex(forwardBy: 2)
        return String(buffer: data)
    }

    // MARK: A message over the limit

    @Test func `fragments behind a message over the limit change nothing: no close before the session's`() throws {
        let channel = try Self.channel(limit: 1024)
        // Four fragments of 500 bytes read at once: the third goes over the limit.
        try channel.writeInbound(Self.frame(.text, fin: false, bytes: 500))
        try channel.writeInbound(Self.frame(.continuation, fin: false, bytes: 500))
        try channel.writeInbound(Self.frame(.continuation, fin: false, bytes: 500))
        try channel.writeInbound(Self.frame(.continuation, fin: true, bytes: 500))
        try channel.writeInbound(Self.frame(.text, fin: true, bytes: 10))
        #expect(try Self.inbound(channel) == [true], "the session hears of the long message once, and of nothing after")
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil, "the codec closed on its own")
        // The session's word after its error: the 1009 close.
        try channel.triggerUserOutboundEvent(WebSocketLineCodec.Answered()).wait()
        #expect(Self.closeCode(try channel.readOutbound(as: WebSocketFrame.self)) == .messageTooLarge)
        _ = try? channel.finish()
    }

    @Test func `the decoder's complaints behind a frame over the limit change nothing`() throws {
        let channel = try Self.channel(limit: 1024)
        channel.pipeline.fireErrorCaught(NIOWebSocketError.invalidFrameLength)
        channel.pipeline.fireErrorCaught(NIOWebSocketError.fragmentedControlFrame)
        channel.pipeline.fireErrorCaught(NIOWebSocketFrameAggregator.Error.tooManyFragments)
        #expect(try Self.inbound(channel) == [true])
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil, "the codec closed on its own")
        _ = try? channel.finish()
    }

    @Test func `a broken frame before any long message still closes with 1002`() throws {
        let channel = try Self.channel(limit: 1024)
        try channel.writeInbound(Self.frame(.continuation, fin: true, bytes: 10))
        let close = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(Self.closeCode(close) == .protocolError)
        #expect(try Self.inbound(channel) == [])
        _ = try? channel.finish()
    }

    // MARK: Pings

    /// A client that sends pings and never reads had every pong written to SwiftNIO's buffer:
    /// 2.2 GB in 15 s. While the connection cannot take more, only the latest ping is answered
    /// (RFC 6455 5.5.3), once it drains.
    @Test func `pings while the connection cannot take more are answered by one pong, for the latest`() throws {
        let channel = try Self.channel()
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        for n in 0..<10_000 {
            try channel.writeInbound(Self.frame(.ping, Array("ping \(n)".utf8)))
        }
        #expect(try Self.outbound(channel).isEmpty, "pongs written while the connection could not take them")
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        let pongs = try Self.outbound(channel)
        #expect(pongs.map(\.opcode) == [.pong])
        #expect(pongs.first.map { String(buffer: $0.unmaskedData) } == "ping 9999")
        // Writable again: each ping gets its pong at once.
        try channel.writeInbound(Self.frame(.ping, Array("now".utf8)))
        #expect(try Self.outbound(channel).map { String(buffer: $0.unmaskedData) } == ["now"])
        _ = try? channel.finish()
    }

    // MARK: RFC 6455's rules

    struct Breach: Sendable, CustomTestStringConvertible {
        var name: String
        var frame: @Sendable () -> WebSocketFrame
        var code: WebSocketErrorCode
        var says: String
        var testDescription: String { name }
    }

    static let breaches: [Breach] = [
        Breach(
            name: "an unmasked frame", frame: { frame(.text, Array(#"{"type":"ping"}"#.utf8), masked: false) },
            code: .protocolError, says: "masked"),
        Breach(
            name: "RSV1 without an extension", frame: { frame(.text, Array(#"{"type":"ping"}"#.utf8), rsv1: true) },
            code: .protocolError, says: "reserved bits"),
        Breach(
            name: "reserved opcode 0x3", frame: { frame(WebSocketOpcode(encodedWebSocketOpcode: 0x3)!, [1]) },
            code: .protocolError, says: "opcode 3 is reserved"),
        Breach(
            name: "reserved control opcode 0xB", frame: { frame(WebSocketOpcode(encodedWebSocketOpcode: 0xB)!, []) },
            code: .protocolError, says: "opcode b is reserved"),
        Breach(
            name: "a close of one byte", frame: { frame(.connectionClose, [0x03]) }, code: .protocolError,
            says: "2-byte code"),
        Breach(
            name: "close code 999", frame: { frame(.connectionClose, [0x03, 0xE7]) }, code: .protocolError,
            says: "close code 999"),
        Breach(
            name: "close code 1005 (only reported locally)", frame: { frame(.connectionClose, [0x03, 0xED]) },
            code: .protocolError, says: "close code 1005"),
        Breach(
            name: "close code 2999", frame: { frame(.connectionClose, [0x0B, 0xB7]) }, code: .protocolError,
            says: "close code 2999"),
        Breach(
            name: "close code 5000", frame: { frame(.connectionClose, [0x13, 0x88]) }, code: .protocolError,
            says: "close code 5000"),
        Breach(
            name: "a close reason that is not UTF-8", frame: { frame(.connectionClose, [0x03, 0xE8, 0xFF]) },
            code: .dataInconsistentWithMessage, says: "UTF-8"),
    ]

    /// Each was accepted before (the close answered 1000, the frame read as a request).
    @Test(arguments: breaches)
    func `a frame that breaks RFC 6455 fails the connection with its code, and is not read`(_ breach: Breach) throws {
        let channel = try Self.channel()
        try channel.writeInbound(breach.frame())
        // A good request behind it is not read either (the channel may be closed by then).
        _ = try? channel.writeInbound(Self.frame(.text, Array(#"{"type":"ping"}"#.utf8)))
        let written = try Self.outbound(channel)
        #expect(written.count == 1)
        #expect(Self.closeCode(written.first) == breach.code)
        #expect(Self.closeReason(written.first).contains(breach.says), "\(Self.closeReason(written.first))")
        #expect(try Self.inbound(channel) == [])
        _ = try? channel.finish()
    }

    @Test(arguments: [1000, 1001, 1003, 1007, 1011, 1012, 1014, 3000, 4999] as [UInt16])
    func `a close with a code an endpoint may send is answered with 1000`(_ code: UInt16) throws {
        let channel = try Self.channel()
        let body = [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye".utf8)
        try channel.writeInbound(Self.frame(.connectionClose, body))
        #expect(Self.closeCode(try Self.outbound(channel).first) == .normalClosure)
        _ = try? channel.finish()
    }

    /// Close reasons named SwiftNIO's error cases (`didReceiveFragmentBeforeReceivingTextOrBinaryFrame`).
    @Test func `close reasons say what was wrong in the RFC's words, not SwiftNIO's`() throws {
        let errors: [any Error] = [
            NIOWebSocketError.fragmentedControlFrame, NIOWebSocketError.multiByteControlFrameLength,
            NIOWebSocketFrameAggregator.Error.tooManyFragments,
            NIOWebSocketFrameAggregator.Error.receivedNewFrameWithoutFinishingPrevious,
            NIOWebSocketFrameAggregator.Error.didReceiveFragmentBeforeReceivingTextOrBinaryFrame,
        ]
        for error in errors {
            let channel = try Self.channel()
            channel.pipeline.fireErrorCaught(error)
            let close = try #require(try Self.outbound(channel).first)
            #expect(Self.closeCode(close) == .protocolError)
            let reason = Self.closeReason(close)
            #expect(!reason.isEmpty && !reason.contains("Error") && !reason.contains("didReceive"), "\(reason)")
            #expect(reason.utf8.count <= 123)
            _ = try? channel.finish()
        }
    }

    @Test func `empty fragments make a message (RFC 6455 5.4)`() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.frame(.text, fin: false, []))
        try channel.writeInbound(Self.frame(.continuation, fin: false, []))
        try channel.writeInbound(Self.frame(.continuation, fin: true, Array("{}".utf8)))
        #expect(try Self.inbound(channel) == [false])
        #expect(try Self.outbound(channel).isEmpty)
        _ = try? channel.finish()
    }

    /// A text message must be UTF-8 (RFC 6455 8.1): the session answers `invalid-utf8`, then the
    /// connection closes with 1007. A binary message is read as bytes, and may be anything.
    @Test func `a text message that is not UTF-8 reaches the session once, then closes 1007 when answered`() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.frame(.text, [0x7B, 0xFF, 0x7D]))
        try channel.writeInbound(Self.frame(.text, Array("{}".utf8)))
        var notUTF8 = 0
        while let frame = try channel.readInbound(as: LineFrame.self) {
            guard case .notUTF8 = frame else { throw Unexpected("\(frame) reached the session") }
            notUTF8 += 1
        }
        #expect(notUTF8 == 1)
        #expect(try Self.outbound(channel).isEmpty, "closed before the session answered")
        try channel.triggerUserOutboundEvent(WebSocketLineCodec.Answered()).wait()
        #expect(Self.closeCode(try Self.outbound(channel).first) == .dataInconsistentWithMessage)
        _ = try? channel.finish()

        let binary = try Self.channel()
        try binary.writeInbound(Self.frame(.binary, [0x7B, 0xFF, 0x7D]))
        guard case .line = try binary.readInbound(as: LineFrame.self) else { throw Unexpected("no line") }
        _ = try? binary.finish()
    }
}
