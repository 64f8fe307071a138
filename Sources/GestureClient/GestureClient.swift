import CLinuxSupport
import GestureEngine
import GestureProtocol
import NIOCore
import NIOPosix

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A connection to gestured for Swift kiosk applications.
///
/// ```swift
/// try await GestureClient.connect { client in           // reads `hello` first
///     try await client.subscribe(Subscription(kinds: [.swipe, .tap]))
///     for try await message in client.messages {
///         if case .gesture(let g) = message { print(g.name, g.state, g.direction as Any) }
///     }
/// }                                                      // closed when the body returns
/// ```
///
/// Built on SwiftNIO rather than plain blocking sockets: the daemon's own server is NIO, the
/// package already depends on it, and NIO gives non-blocking I/O with back-pressure for free —
/// ``messages`` stops reading from the socket while the application lags (so the *server's*
/// bounded queue and coalescing take over, instead of memory growing here), without a thread per
/// connection or a hand-written poll loop. The connection is scoped (structured concurrency):
/// it lives for the body of ``connect(to:_:)`` and is closed when the body returns or throws.
///
/// Requests (`subscribe`, `define`, `ping`) get an `id` and wait for their own reply, which is
/// taken out of the stream before it reaches ``messages``; make them before iterating or from
/// another task while iterating (replies are read as long as fewer than ``bufferedMessages``
/// unread messages wait).
public final class GestureClient: Sendable {
    /// The server's greeting: protocol version, devices, recognizers, limits, this connection's id.
    public let hello: HelloMessage
    /// Everything else the server sends, in order: `gesture`, `touch`, `device`, and `error`s
    /// that answer no request of this client (such as `overflow` or `shutdown`, after which the
    /// sequence ends). Iterate it from one task only.
    public let messages: Messages

    /// Unread messages buffered before the client stops reading from the socket.
    public static let bufferedMessages = 4096

    private let channel: any Channel
    private let router: NIOLoopBound<ReplyRouter>

    private init(hello: HelloMessage, channel: any Channel, router: NIOLoopBound<ReplyRouter>, messages: Messages) {
        self.hello = hello
        self.channel = channel
        self.router = router
        self.messages = messages
    }

    /// Connects to the daemon's socket, waits for `hello`, runs `body` with the connection and
    /// closes it. Connection problems are thrown as ``GestureClientError``; errors of `body` pass
    /// through. A path no Unix socket can have (``SocketPath``) is refused before anything is
    /// tried.
    ///
    /// `server` is asked about the process that serves the socket (``ServerCredentials``, as the
    /// kernel recorded it when that process listened) before the connection is used: a reason it
    /// gives refuses the server, thrown as ``GestureClientError/cannotConnect(path:reason:)``
    /// with that reason, before `hello` is awaited or anything is sent. By default any server is
    /// taken.
    public static func connect<Result: Sendable>(
        to path: String = GestureProtocol.defaultSocketPath,
        server: @Sendable (ServerCredentials) -> String? = { _ in nil },
        _ body: (GestureClient) async throws -> Result
    ) async throws -> Result {
        do {
            _ = try SocketPath(path, for: .connect)
        } catch {
            throw GestureClientError.cannotConnect(path: path, reason: error.description)
        }
        let (async, router): (NIOAsyncChannel<ServerMessage, Never>, NIOLoopBound<ReplyRouter>)
        do {
            (async, router) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let router = ReplyRouter()
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(ByteToMessageHandler(ServerLineDecoder()))
                        try pipeline.addHandler(router)
                        let watermarks = NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark(
                            lowWatermark: bufferedMessages / 4, highWatermark: bufferedMessages)
                        let async = try NIOAsyncChannel<ServerMessage, Never>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(backPressureStrategy: watermarks))
                        return (async, NIOLoopBound(router, eventLoop: channel.eventLoop))
                    }
                }
        } catch {
            throw GestureClientError.cannotConnect(path: path, reason: describe(error))
        }
        let channel = async.channel
        return try await async.executeThenClose { inbound in
            let credentials: ServerCredentials
            do {
                credentials = try await ServerCredentials.of(channel)
            } catch {
                throw GestureClientError.cannotConnect(
                    path: path, reason: "the kernel does not say who serves the socket: \(describe(error))")
            }
            if let refusal = server(credentials) {
                throw GestureClientError.cannotConnect(path: path, reason: refusal)
            }
            let hello: HelloMessage
            do {
                hello = try await channel.eventLoop.flatSubmit { router.value.hello }.get()
            } catch {
                throw clientError(error)
            }
            return try await body(
                GestureClient(hello: hello, channel: channel, router: router, messages: Messages(base: inbound)))
        }
    }

    /// Replaces this connection's subscription; returns once the server accepted it.
    public func subscribe(_ subscription: Subscription) async throws(GestureClientError) {
        try await request("subscribe", subscription)
    }

    /// Drops this connection's subscription.
    public func unsubscribe() async throws(GestureClientError) {
        try await request("unsubscribe")
    }

    /// Replaces this connection's regions and recognizers (gone when it closes); throws
    /// ``GestureClientError/refused(_:)`` with the server's `invalid-definition` error.
    public func define(_ definitions: Definitions) async throws(GestureClientError) {
        try await request("define", definitions)
    }

    /// Round trip to the server.
    public func ping() async throws(GestureClientError) {
        try await request("ping")
    }

    /// The daemon's status (a `status` request).
    public func status() async throws(GestureClientError) -> StatusMessage {
        guard case .status(let status) = try await request("status") else {
            throw GestureClientError.protocolViolation("a status request was not answered with a status")
        }
        return status
    }

    /// Starts recording a panel (docs/PROTOCOL.md, "record"); returns the `recording` `started`
    /// message, with the panel's description. Its `raw` messages, and the `recording` `stopped`
    /// message that ends them, come through ``messages`` (the `started` message too, first).
    /// Throws ``GestureClientError/refused(_:)`` with the server's error (`permission-denied`,
    /// `no-such-device`, `busy`, `unavailable`).
    public func record(_ options: RecordOptions) async throws(GestureClientError) -> RecordingMessage {
        guard case .recording(let started) = try await request("record", options) else {
            throw .protocolViolation("the answer to record was not a recording message")
        }
        return started
    }

    /// Stops this connection's recording; returns once the server answered (the `recording`
    /// `stopped` message, which ``messages`` also delivers after the last `raw` message, or `ok`
    /// when nothing was being recorded).
    public func stopRecording() async throws(GestureClientError) {
        try await request("stop-recording")
    }

    @discardableResult
    private func request(
        _ type: String, _ fields: (any RequestFields)? = nil
    ) async throws(GestureClientError) -> ServerMessage {
        let router = self.router
        do {
            return try await channel.eventLoop.flatSubmit {
                router.value.send { ClientMessage(type, id: $0, fields: fields) }
            }.get()
        } catch {
            throw Self.clientError(error)
        }
    }

    private static func clientError(_ error: any Error) -> GestureClientError {
        switch error {
        case let error as GestureClientError: error
        case let error as ErrorMessage: .refused(error)
        default: .connectionLost(describe(error))
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let io = error as? IOError {
            return String(cString: strerror(io.errnoCode))
        }
        return "\(error)"
    }

    /// The server's messages as an async sequence.
    public struct Messages: AsyncSequence, Sendable {
        public typealias Element = ServerMessage
        let base: NIOAsyncChannelInboundStream<ServerMessage>

        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: NIOAsyncChannelInboundStream<ServerMessage>.AsyncIterator
            public mutating func next() async throws -> ServerMessage? { try await base.next() }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
    }
}

/// Who serves a Unix socket: the process that listened on it, as the kernel recorded it then
/// (SO_PEERCRED of the connected socket). Under socket activation that is systemd (uid 0), which
/// made the socket for the daemon.
public struct ServerCredentials: Hashable, Sendable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// The credentials of `channel`'s peer, read on its event loop.
    static func of(_ channel: any Channel) async throws -> ServerCredentials {
        guard let provider = channel as? any SocketOptionProvider else {
            throw GestureClientError.protocolViolation("not a socket")
        }
        let future: EventLoopFuture<gestured_ucred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(GESTURED_SOL_SOCKET), name: SocketOptionName(GESTURED_SO_PEERCRED))
        let ucred = try await future.get()
        return ServerCredentials(pid: ucred.pid, uid: ucred.uid, gid: ucred.gid)
    }
}

/// Why a client call failed.
public enum GestureClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing listens at the path (or it may not be opened).
    case cannotConnect(path: String, reason: String)
    /// The server answered the request with an `error` (or refused the connection).
    case refused(ErrorMessage)
    /// The connection ended before the answer came.
    case connectionLost(String)
    /// The server sent something that is not protocol v1.
    case protocolViolation(String)

    public var description: String {
        switch self {
        case .cannotConnect(let path, let reason): "cannot connect to \(path): \(reason)"
        case .refused(let error): "the server refused: \(error)"
        case .connectionLost(let reason): "the connection ended: \(reason)"
        case .protocolViolation(let what): "the server broke the protocol: \(what)"
        }
    }
}

/// Splits the server's bytes into lines. The server's lines are bounded by what it sends (a
/// `hello` with many recognizers is the longest); 16 MiB without a newline means the peer is not
/// a gestured server.
struct ServerLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    static let maxLineBytes = 16 << 20
    private var scanned = 0

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        guard let newline = view[(view.startIndex + scanned)...].firstIndex(of: UInt8(ascii: "\n")) else {
            scanned = view.count
            if scanned > Self.maxLineBytes {
                throw GestureClientError.protocolViolation("a line longer than \(Self.maxLineBytes) bytes")
            }
            return .needMoreData
        }
        scanned = 0
        let line = buffer.readSlice(length: newline - view.startIndex)!
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(Self.wrapInboundOut(line))
        return .continue
    }
}

/// Decodes the server's lines, answers pending requests with their replies, and passes the rest
/// on to ``GestureClient/messages``. Lives on the connection's event loop.
final class ReplyRouter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ServerMessage
    typealias OutboundOut = ByteBuffer

    /// Set while the handler is in the pipeline (nil after: the context holds this handler).
    private var context: ChannelHandlerContext?
    /// The connection's event loop, which outlives the connection.
    private var eventLoop: (any EventLoop)?
    private var helloPromise: EventLoopPromise<HelloMessage>?
    private var receivedHello: Result<HelloMessage, any Error>?
    private var pending: [Int64: EventLoopPromise<ServerMessage>] = [:]
    private var nextID: Int64 = 1
    private let decoder = JSONDecoder()
    private let encoder = GestureProtocol.makeEncoder()

    /// The `hello`, once it has arrived.
    var hello: EventLoopFuture<HelloMessage> {
        let eventLoop = eventLoop!
        if let receivedHello { return eventLoop.makeCompletedFuture(receivedHello) }
        let promise = helloPromise ?? eventLoop.makePromise()
        helloPromise = promise
        return promise.futureResult
    }

    /// Sends a request with a fresh id; the future holds its reply (`ok`, `pong`, `status`, `recording`) or fails with
    /// the server's `error`.
    func send(_ request: (RequestID) -> some Encodable) -> EventLoopFuture<ServerMessage> {
        guard let context, context.channel.isActive else {
            return eventLoop!.makeFailedFuture(GestureClientError.connectionLost("closed"))
        }
        let id = nextID
        nextID += 1
        let line: Data
        do {
            line = try GestureProtocol.encodeLine(request(.number(id)), with: encoder)
        } catch {
            return context.eventLoop.makeFailedFuture(error)
        }
        let promise = context.eventLoop.makePromise(of: ServerMessage.self)
        pending[id] = promise
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: line)), promise: nil)
        return promise.futureResult
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        eventLoop = context.eventLoop
    }

    /// Breaks the cycle context → handler → context, or every connection would stay in memory.
    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        let message: ServerMessage
        do {
            message = try decoder.decode(ServerMessage.self, from: Data(line.readableBytesView))
        } catch {
            // A newer server may send types this client does not know: skip those. Anything
            // else that does not decode is a broken peer.
            if let probe = try? decoder.decode(TypeProbe.self, from: Data(line.readableBytesView)),
                !ServerMessage.types.contains(probe.type)
            {
                return
            }
            context.fireErrorCaught(GestureClientError.protocolViolation("\(error)"))
            context.close(promise: nil)
            return
        }
        if receivedHello == nil {
            switch message {
            case .hello(let hello): settleHello(.success(hello))
            case .error(let error): settleHello(.failure(error))
            default: settleHello(.failure(GestureClientError.protocolViolation("the first message was not hello")))
            }
            return
        }
        switch message {
        case .ok(.number(let id)?), .pong(.number(let id)?):
            if let promise = pending.removeValue(forKey: id) { return promise.succeed(message) }
        case .status(let status):
            if case .number(let id)? = status.id, let promise = pending.removeValue(forKey: id) {
                return promise.succeed(message)
            }
        case .error(let error):
            if case .number(let id)? = error.id, let promise = pending.removeValue(forKey: id) {
                return promise.fail(error)
            }
        case .recording(let recording):
            // The answer to `record` or `stop-recording`, and also a mark in the stream: where
            // the recording's `raw` messages begin or end.
            if case .number(let id)? = recording.id, let promise = pending.removeValue(forKey: id) {
                promise.succeed(message)
            }
        case .hello, .gesture, .touch, .device, .dropped, .explain, .raw, .ok, .pong, .wake, .idle, .active, .contact:
            break
        }
        context.fireChannelRead(wrapInboundOut(message))
    }

    func channelInactive(context: ChannelHandlerContext) {
        settleHello(.failure(GestureClientError.connectionLost("closed before hello")))
        let waiting = pending
        pending.removeAll()
        for promise in waiting.values { promise.fail(GestureClientError.connectionLost("closed")) }
        context.fireChannelInactive()
    }

    private func settleHello(_ result: Result<HelloMessage, any Error>) {
        guard receivedHello == nil else { return }
        receivedHello = result
        helloPromise?.completeWith(result)
        helloPromise = nil
    }

    private struct TypeProbe: Decodable {
        var type: String
    }
}
