import Foundation
import GestureProtocol
import NIOCore
import NIOPosix
import Synchronization
import TestSupport

@testable import GestureServer

/// A raw protocol client for tests: sends bytes, collects every line the server sends (and
/// records it in the traffic log), and waits for lines or for the end of the connection with a
/// deadline.
final class LineClient: ProtocolClient {
    struct Received: Sendable {
        var lines: [String] = []
        var closed = false
    }

    let channel: any Channel
    let received: Observed<Received>
    private let log: TrafficLog
    private let cursor = Mutex(0)

    private init(channel: any Channel, received: Observed<Received>, log: TrafficLog) {
        self.channel = channel
        self.received = received
        self.log = log
    }

    /// Connects; with `reading: false` the client does not read at all (a stalled application)
    /// until ``startReading()``.
    static func connect(to path: String, log: TrafficLog, reading: Bool = true) async throws -> LineClient {
        let received = Observed(Received())
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.autoRead, value: reading)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(LineDecoding(LineFrameDecoder(maxLength: 1 << 24))),
                        Collector(received: received, log: log))
                }
            }
            .connect(unixDomainSocketPath: path).get()
        return LineClient(channel: channel, received: received, log: log)
    }

    /// Sends a well-formed request (recorded for schema validation).
    func send(_ line: String) async throws {
        log.sent(line)
        try await sendRaw(Array((line + "\n").utf8))
    }

    /// Sends bytes as they are (bad input).
    func sendRaw(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// The next line not yet returned.
    func nextLine(within: Duration = .seconds(60)) async throws -> String {
        let index = cursor.withLock { $0 }
        try await received.wait(for: "line \(index + 1) from the server", within: within) {
            $0.lines.count > index || $0.closed
        }
        let lines = received.value.lines
        guard index < lines.count else { throw ConnectionEnded(afterLines: index) }
        cursor.withLock { $0 += 1 }
        return lines[index]
    }

    /// The next line as a message.
    func next(within: Duration = .seconds(60)) async throws -> ServerMessage {
        let line = try await nextLine(within: within)
        return try JSONDecoder().decode(ServerMessage.self, from: Data(line.utf8))
    }

    /// Waits until the server has closed the connection.
    func waitForEnd(within: Duration = .seconds(60)) async throws {
        try await received.wait(for: "the server to close the connection", within: within) { $0.closed }
    }

    func startReading() {
        channel.setOption(.autoRead, value: true).whenSuccess { [channel] in channel.read() }
    }

    func close() async {
        try? await channel.close()
    }

    struct ConnectionEnded: Error, CustomStringConvertible {
        var afterLines: Int
        var description: String { "the connection ended after \(afterLines) lines" }
    }

    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = LineFrame
        let received: Observed<Received>
        let log: TrafficLog

        init(received: Observed<Received>, log: TrafficLog) {
            self.received = received
            self.log = log
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .line(let buffer) = unwrapInboundIn(data) else { return }
            let line = String(buffer: buffer)
            log.received(line)
            received.update { $0.lines.append(line) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            received.update { $0.closed = true }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}

/// A test client of either transport: what the tests ask of both alike.
protocol ProtocolClient: Sendable {
    /// Sends a well-formed request (recorded for schema validation).
    func send(_ line: String) async throws
    /// The next message from the server.
    func next(within: Duration) async throws -> ServerMessage
}

extension ProtocolClient {
    /// Reads messages until `type` arrives; returns it and everything skipped.
    func next(ofType type: String, within: Duration = .seconds(60)) async throws -> ServerMessage {
        while true {
            let message = try await next(within: within)
            if message.type == type { return message }
        }
    }

    /// Sends a ping and waits for its pong (everything before it is consumed).
    func roundTrip(_ id: String = "sync") async throws {
        try await send(#"{"type":"ping","id":"\#(id)"}"#)
        while true {
            if case .pong(.string(id)?) = try await next(within: .seconds(60)) { return }
        }
    }
}

/// The server's line framing in a client's NIO pipeline.
struct LineDecoding: ByteToMessageDecoder {
    typealias InboundOut = LineFrame
    var decoder: LineFrameDecoder

    init(_ decoder: LineFrameDecoder) { self.decoder = decoder }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let frame = decoder.next(&buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(frame))
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if let frame = decoder.last(&buffer) { context.fireChannelRead(Self.wrapInboundOut(frame)) }
        return .needMoreData
    }
}
