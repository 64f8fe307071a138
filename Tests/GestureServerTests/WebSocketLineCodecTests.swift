import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import GestureServer

/// The codec's rule for a message over the limit: the session says `line-too-long`, then closes
/// with 1009, and nothing the peer sends after the message is read (WebSocketLineCodec.swift).
/// The session answers on the server's thread, later than the event loop reads on: a complaint
/// of the aggregator or the decoder about the frames behind the message must not close the
/// connection first. It did (a 1002 close with `didReceiveFragmentBeforeReceivingTextOrBinaryFrame`
/// overtook the error) whenever the fragments after the limit arrived in the same read — one run
/// of the socket test "a message over the limit gets line-too-long, then close 1009" in a loaded
/// full suite, 2026-11-25.
@Suite struct WebSocketLineCodecTests {
    /// The pipeline the endpoint builds after the handshake, without the session behind it.
    static func channel(limit: Int) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            NIOWebSocketFrameAggregator(
                minNonFinalFragmentSize: 1, maxAccumulatedFrameCount: WebSocketListener.maxFragments,
                maxAccumulatedFrameSize: limit))
        try channel.pipeline.syncOperations.addHandler(
            WebSocketLineCodec(pingInterval: nil, closeTimeout: .seconds(5), logger: ServerFixture.logger))
        return channel
    }

    static func frame(_ opcode: WebSocketOpcode, fin: Bool, bytes: Int) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: opcode, data: ByteBuffer(repeating: UInt8(ascii: " "), count: bytes))
    }

    /// What reached the session: `true` for each `tooLong`, `false` for each line.
    static func inbound(_ channel: EmbeddedChannel) throws -> [Bool] {
        var frames: [Bool] = []
        while let frame = try channel.readInbound(as: LineFrame.self) {
            switch frame {
            case .tooLong: frames.append(true)
            case .line: frames.append(false)
            }
        }
        return frames
    }

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
        try channel.triggerUserOutboundEvent(WebSocketLineCodec.MessageTooLarge()).wait()
        let close = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(close.opcode == .connectionClose)
        var data = close.unmaskedData
        #expect(data.readWebSocketErrorCode() == .messageTooLarge)
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
        var data = close.unmaskedData
        #expect(data.readWebSocketErrorCode() == .protocolError)
        #expect(try Self.inbound(channel) == [])
        _ = try? channel.finish()
    }
}
