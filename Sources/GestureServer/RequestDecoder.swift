import GestureEngine
import GestureProtocol
import NIOCore
import NIOPosix

/// Decodes requests off the server thread — the daemon's input thread, which must never decode,
/// validate or compile anything on a client's behalf (docs/PROTOCOL.md §9) — and admits them
/// there (``RequestType/admit(_:)``: a `define` against the limits per connection, and of all
/// connections together through the ``DefinitionLedger``), so the server thread gets the
/// finished result: a request to act on, or the error to send.
///
/// One thread (the server's worker, a one-thread ``NIOThreadPool`` asleep on a condition
/// variable while there is nothing to do), jobs in the order they came: a
/// connection has one request here at a time and is not read meanwhile
/// (``ClientSession/pump()``), so its requests keep their order, and `define`s of different
/// connections reach the engine in the order they were read.
final class RequestDecoder: Sendable {
    /// What a request line became.
    enum Decoded: Sendable {
        /// A valid request and its `id`, admitted (a `define`'s definitions count as pending in
        /// the ledger).
        case request(any RequestType, id: RequestID?)
        /// The error to answer it with.
        case refused(ErrorMessage)
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

    /// Decodes `line` as one of `table`'s types and admits it on the decoder's thread; `then`
    /// gets the result there.
    func decode(
        _ line: ByteBuffer, against table: RequestTable, rules: AdmissionRules,
        then: @escaping @Sendable (Decoded) -> Void
    ) {
        run { [beforeDecoding] in
            beforeDecoding()
            then(Self.decode(line, against: table, rules: rules))
        }
    }

    /// Runs `job` on the decoder's thread, behind the lines before it: a line's decoding, or what
    /// the server thread must not do itself for a client (making and encoding a reply).
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
    static func decode(_ line: ByteBuffer, against table: RequestTable, rules: AdmissionRules) -> Decoded {
        switch line.withUnsafeReadableBytes({ table.parse($0) }) {
        case .failure(let error):
            return .refused(error)
        case .success(let (request, id)):
            guard var refusal = request.admit(rules) else { return .request(request, id: id) }
            refusal.id = id
            return .refused(refusal)
        }
    }
}
