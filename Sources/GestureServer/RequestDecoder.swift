import GestureEngine
import GestureProtocol
import NIOCore
import NIOPosix

/// Decodes requests off the server thread — the daemon's input thread, which must never decode,
/// validate or compile anything on a client's behalf (docs/PROTOCOL.md §9) — and admits a
/// `define` there against the limits (per connection, and of all connections together through
/// the ``DefinitionLedger``), so the server thread gets the finished result: a request to act
/// on, or the error to send.
///
/// One thread (the server's worker, a one-thread ``NIOThreadPool`` asleep on a condition
/// variable while there is nothing to do), jobs in the order they came: a
/// connection has one request here at a time and is not read meanwhile
/// (``ClientSession/pump()``), so its requests keep their order, and `define`s of different
/// connections reach the engine in the order they were read.
final class RequestDecoder: Sendable {
    /// What a request line became.
    enum Decoded: Sendable {
        /// A valid request and its `id`; a `define` admitted (its definitions count as pending in
        /// the ledger).
        case request(ServedRequest, id: RequestID?)
        /// The error to answer it with.
        case refused(ErrorMessage)
    }

    /// What a connection's `define` is admitted against.
    struct DefineRules: Sendable {
        let client: ClientID
        /// Why this connection may not define at all (nil: it may).
        let unavailable: String?
        let limits: ServerLimits
        let ledger: DefinitionLedger
    }

    /// The decoder's thread; nil when jobs run on the calling thread at once (tests of the
    /// session alone, which run the server thread's mailbox by hand and must not wait for
    /// another thread on theirs).
    private let pool: NIOThreadPool?
    /// Runs on the decoder's thread before each line is decoded: tests count the lines decoded,
    /// and hold the thread to show that nothing waits for it but the connection it decodes for.
    private let beforeDecoding: @Sendable () -> Void

    init(
        pool: NIOThreadPool? = nil, onCallingThread: Bool = false, beforeDecoding: @escaping @Sendable () -> Void = {}
    ) {
        self.pool = onCallingThread ? nil : pool ?? NIOThreadPool(numberOfThreads: 1)
        self.beforeDecoding = beforeDecoding
    }

    /// Decodes `line` as one of `table`'s types (and admits it if it is a `define`) on the
    /// decoder's thread; `then` gets the result there.
    func decode(
        _ line: ByteBuffer, against table: RequestTable, rules: DefineRules,
        then: @escaping @Sendable (Decoded) -> Void
    ) {
        guard let pool else {
            beforeDecoding()
            return then(Self.decode(line, against: table, rules: rules))
        }
        pool.start()
        pool.submit { [beforeDecoding] state in
            guard case .active = state else { return }
            beforeDecoding()
            then(Self.decode(line, against: table, rules: rules))
        }
    }

    /// Runs `job` on the decoder's thread, behind the lines before it: what the server thread
    /// must not do itself for a client beside decoding (making and encoding a `status` reply).
    func run(_ job: @escaping @Sendable () -> Void) {
        guard let pool else { return job() }
        pool.start()
        pool.submit { state in
            guard case .active = state else { return }
            job()
        }
    }

    /// Waits for a job under way and stops the thread.
    func shutDown() {
        try? pool?.syncShutdownGracefully()
    }

    /// What the decoder's thread does with one line.
    static func decode(_ line: ByteBuffer, against table: RequestTable, rules: DefineRules) -> Decoded {
        switch line.withUnsafeReadableBytes({ ClientMessage.parse($0, types: table.types) }) {
        case .failure(let error):
            return .refused(error)
        case .success(let (request, id)):
            guard case .message(.define(let definitions)) = request else { return .request(request, id: id) }
            if let refusal = rules.admit(definitions, id: id) { return .refused(refusal) }
            return .request(request, id: id)
        }
    }
}

extension RequestDecoder.DefineRules {
    /// Why a connection may not define at all: `unavailable` (no engine behind the server, or a
    /// WebSocket endpoint without `allow-define`).
    static func unavailable(transport: ClientSession.Transport, hasDelegate: Bool) -> String? {
        guard hasDelegate else { return "this server does not accept definitions" }
        if case .webSocket(_, _, allowsDefine: false, _) = transport {
            return "the WebSocket endpoint does not accept definitions (websocket.allow-define is false)"
        }
        return nil
    }

    /// Refuses `definitions` (the error to send), or admits them as the connection's pending
    /// `define`: `unavailable`, `busy`, over the limits of one connection (`invalid-definition`)
    /// or of all together (`too-many-recognizers`), in that order.
    func admit(_ definitions: Definitions, id: RequestID?) -> ErrorMessage? {
        if let unavailable { return ErrorMessage(code: .unavailable, message: unavailable, id: id) }
        if ledger.hasPending(client) { return ErrorMessage.busy(id: id) }
        let most = limits.maxDefinitions
        for (key, count) in [("regions", definitions.regions.count), ("recognizers", definitions.recognizers.count)]
        where count > most {
            return ErrorMessage(
                code: .invalidDefinition, message: "\(key): \(count) given, at most \(most) per connection", id: id,
                path: "/\(key)")
        }
        if definitions.templateCount > limits.maxTemplates {
            return ErrorMessage(
                code: .invalidDefinition,
                message:
                    "recognizers: \(definitions.templateCount) shape templates given, at most \(limits.maxTemplates) per connection",
                id: id, path: "/recognizers")
        }
        switch ledger.admit(definitions, for: client) {
        case .admitted: return nil
        case .busy: return ErrorMessage.busy(id: id)
        case .exceeds(let why): return ErrorMessage(code: .tooManyRecognizers, message: why, id: id)
        }
    }
}

extension ErrorMessage {
    /// A `define` while the connection's previous one is still being applied.
    static func busy(id: RequestID?) -> ErrorMessage {
        ErrorMessage(code: .busy, message: "the previous define of this connection is still being applied", id: id)
    }
}
