import Foundation
import GestureProtocol
import NIOCore
import NIOPosix
import TestSupport

/// A WebSocket client for tests, on raw bytes: it writes the handshake and every frame itself
/// (masked, as a browser's), so a test can send what a browser never would — fragments with a
/// ping between them, oversized frames, bytes that are not UTF-8 — and it parses the server's
/// frames itself, so what is checked is what went over the wire.
final class WebSocketClient: ProtocolClient {
    struct Frame: Sendable {
        var fin: Bool
        var opcode: UInt8
        var payload: [UInt8]

        var text: String { String(decoding: payload, as: UTF8.self) }
        /// A close frame's code (nil without one).
        var closeCode: UInt16? {
            guard opcode == Opcode.close, payload.count >= 2 else { return nil }
            return UInt16(payload[0]) << 8 | UInt16(payload[1])
        }
    }

    enum Opcode {
        static let continuation: UInt8 = 0x0
        static let text: UInt8 = 0x1
        static let binary: UInt8 = 0x2
        static let close: UInt8 = 0x8
        static let ping: UInt8 = 0x9
        static let pong: UInt8 = 0xA
    }

    struct Received: Sendable {
        /// The server's answer to the handshake, up to its blank line.
        var head: String?
        /// What followed a refusal's head (its body).
        var body: [UInt8] = []
        var frames: [Frame] = []
        var closed = false
        /// The server ended its output (only seen with `allowsHalfClosure`; else that closes).
        var inputClosed = false

        /// Text frames: the protocol's messages.
        var lines: [String] { frames.filter { $0.opcode == Opcode.text }.map(\.text) }
    }

    let channel: any Channel
    let received: Observed<Received>
    private let log: TrafficLog
    private let cursor = Observed(0)

    private init(channel: any Channel, received: Observed<Received>, log: TrafficLog) {
        self.channel = channel
        self.received = received
        self.log = log
    }

    /// Opens a TCP connection and sends the handshake (unless `sendsRequest` is false); `origin`
    /// nil sends no `Origin` header, `upgrade` false a plain GET; `headers` are added as written
    /// (`"Origin: …"` for a second one). Returns once the server has answered the request (with
    /// anything). `answersPings`: whether the client answers the server's pings (a browser does).
    static func open(
        port: Int, origin: String? = "http://localhost:8080", path: String = "/", method: String = "GET",
        upgrade: Bool = true, headers: [String] = [], log: TrafficLog, reading: Bool = true, answersPings: Bool = true,
        sendsRequest: Bool = true, receiveBuffer: Int? = nil, allowsHalfClosure: Bool = false
    ) async throws -> WebSocketClient {
        let received = Observed(Received())
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if let receiveBuffer {
            bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBuffer))
        }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if upgrade {
            request +=
                "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        }
        if let origin { request += "Origin: \(origin)\r\n" }
        for header in headers { request += header + "\r\n" }
        request += "\r\n"
        let handshake = sendsRequest ? ByteBuffer(string: request) : nil
        // The request is written on the event loop as the connection comes up, not once this task
        // runs again: on a loaded host the test's task can wait longer than the server's handshake
        // timeout (10 s) to be resumed, and the server rightly closes a connection that says
        // nothing for that long.
        let (channel, sent) = try await bootstrap
            .channelOption(.autoRead, value: reading)
            .channelOption(.allowRemoteHalfClosure, value: allowsHalfClosure)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        Parser(received: received, log: log, answersPings: answersPings))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .flatMap { channel -> EventLoopFuture<(any Channel, Bool)> in
                guard let handshake else { return channel.eventLoop.makeSucceededFuture((channel, false)) }
                return channel.writeAndFlush(handshake).map { (channel, true) }.flatMapErrorThrowing { error in
                    // Closed by the server as soon as it accepted the connection (a limit).
                    guard let error = error as? ChannelError, error == .ioOnClosedChannel else { throw error }
                    return (channel, false)
                }
            }
            .get()
        let client = WebSocketClient(channel: channel, received: received, log: log)
        guard sendsRequest else { return client }
        guard sent else {
            try await received.wait(for: "the connection's end", within: .seconds(60)) { $0.closed }
            return client
        }
        if reading {
            try await received.wait(for: "the handshake's answer", within: .seconds(60)) { $0.head != nil || $0.closed }
        }
        return client
    }

    /// ``open`` that must be upgraded; reads nothing more.
    static func connect(
        port: Int, origin: String = "http://localhost:8080", log: TrafficLog, answersPings: Bool = true,
        receiveBuffer: Int? = nil
    ) async throws -> WebSocketClient {
        let client = try await open(
            port: port, origin: origin, log: log, answersPings: answersPings, receiveBuffer: receiveBuffer)
        let head = client.received.value.head ?? "(closed)"
        guard head.hasPrefix("HTTP/1.1 101") else { throw Unexpected("no upgrade: \(head)") }
        return client
    }

    /// Sends a well-formed request as one text frame (recorded for schema validation).
    func send(_ line: String) async throws {
        log.sent(line)
        try await sendFrame(opcode: Opcode.text, Array(line.utf8))
    }

    /// Sends one frame, masked as a client's must be (unless `masked` is false; `reserved` sets
    /// RSV1–RSV3 as bits 0x40, 0x20, 0x10).
    func sendFrame(
        fin: Bool = true, opcode: UInt8, _ payload: [UInt8], masked: Bool = true, reserved: UInt8 = 0
    ) async throws {
        try await channel.writeAndFlush(
            ByteBuffer(bytes: Self.frame(fin: fin, opcode: opcode, payload, masked: masked, reserved: reserved)))
    }

    static func frame(
        fin: Bool = true, opcode: UInt8, _ payload: [UInt8], masked: Bool = true, reserved: UInt8 = 0
    ) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | reserved | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126: bytes.append(maskBit | UInt8(payload.count))
        case ..<65_536: bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            bytes += [maskBit | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        guard masked else { return bytes + payload }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        bytes += mask
        bytes += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return bytes
    }

    /// The next frame not yet returned.
    func nextFrame(within: Duration = .seconds(60)) async throws -> Frame {
        let index = cursor.value
        try await received.wait(for: "frame \(index + 1) from the server", within: within) {
            $0.frames.count > index || $0.closed
        }
        let frames = received.value.frames
        guard index < frames.count else { throw LineClient.ConnectionEnded(afterLines: index) }
        cursor.update { $0 += 1 }
        return frames[index]
    }

    /// The next protocol message (text frames; the server's pings are skipped).
    func next(within: Duration = .seconds(60)) async throws -> ServerMessage {
        while true {
            let frame = try await nextFrame(within: within)
            switch frame.opcode {
            case Opcode.text: return try JSONDecoder().decode(ServerMessage.self, from: Data(frame.payload))
            case Opcode.ping, Opcode.pong: continue
            default: throw Unexpected("a frame with opcode \(frame.opcode) where a message was expected: \(frame.text)")
            }
        }
    }

    /// The close frame the server sent, once it has closed the connection.
    func closeFrame(within: Duration = .seconds(60)) async throws -> Frame? {
        try await received.wait(for: "the server to close the connection", within: within) { $0.closed }
        return received.value.frames.last { $0.opcode == Opcode.close }
    }

    func startReading() {
        channel.setOption(.autoRead, value: true).whenSuccess { [channel] in channel.read() }
    }

    func close() async {
        try? await channel.close()
    }

    /// Bytes in, the handshake's answer and then frames out.
    private final class Parser: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let received: Observed<Received>
        let log: TrafficLog
        let answersPings: Bool
        private var buffer = ByteBuffer()
        private var upgraded = false

        init(received: Observed<Received>, log: TrafficLog, answersPings: Bool) {
            self.received = received
            self.log = log
            self.answersPings = answersPings
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            buffer.writeBuffer(&bytes)
            if received.value.head == nil {
                let view = buffer.readableBytesView
                guard let end = view.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
                let head = buffer.readString(length: end.upperBound - view.startIndex)!
                upgraded = head.hasPrefix("HTTP/1.1 101")
                received.update { $0.head = head }
            }
            guard upgraded else {
                let rest = buffer.readBytes(length: buffer.readableBytes) ?? []
                received.update { $0.body += rest }
                return
            }
            while let frame = parseFrame() {
                if frame.opcode == Opcode.text { log.received(frame.text) }
                if frame.opcode == Opcode.ping, answersPings {
                    context.writeAndFlush(
                        wrapOutboundOut(ByteBuffer(bytes: WebSocketClient.frame(opcode: Opcode.pong, frame.payload))),
                        promise: nil)
                }
                received.update { $0.frames.append(frame) }
            }
        }

        /// One whole unmasked frame from the front of the buffer, or nil when it is not all there.
        private func parseFrame() -> Frame? {
            let view = buffer.readableBytesView
            guard view.count >= 2 else { return nil }
            let b0 = view[view.startIndex]
            let b1 = view[view.startIndex + 1]
            var length = Int(b1 & 0x7F)
            var header = 2
            if length == 126 {
                guard view.count >= 4 else { return nil }
                length = Int(view[view.startIndex + 2]) << 8 | Int(view[view.startIndex + 3])
                header = 4
            } else if length == 127 {
                guard view.count >= 10 else { return nil }
                length = (2..<10).reduce(0) { $0 << 8 | Int(view[view.startIndex + $1]) }
                header = 10
            }
            precondition(b1 & 0x80 == 0, "a server's frames are never masked")
            guard view.count >= header + length else { return nil }
            buffer.moveReaderIndex(forwardBy: header)
            let payload = buffer.readBytes(length: length)!
            return Frame(fin: b0 & 0x80 != 0, opcode: b0 & 0x0F, payload: payload)
        }

        func channelInactive(context: ChannelHandlerContext) {
            received.update { $0.closed = true }
            context.fireChannelInactive()
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case ChannelEvent.inputClosed = event { received.update { $0.inputClosed = true } }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
