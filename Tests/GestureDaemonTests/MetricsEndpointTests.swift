import Foundation
import GestureMetrics
import Glibc
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing

@testable import GestureDaemon

/// The metrics endpoint's connections (docs/FLEET.md, "The endpoint's limits"): what a local
/// program that sends requests and never reads, trickles a request, or sends garbage can make
/// it hold. The pipeline is the endpoint's own (``MetricsEndpoint/configureConnection(_:snapshots:)``)
/// on an `EmbeddedChannel`, with the socket's side played by ``UnreadSocket`` and time by the
/// embedded loop; the per-peer cap runs on a real listening socket.
@Suite struct MetricsEndpointTests {
    /// The socket under the pipeline. Holding, it plays a peer that does not read: what the
    /// pipeline writes is kept, its promises not completed, until ``release()`` writes it out as
    /// a kernel taking it would. It counts the reads the pipeline asks for (as `autoRead` would
    /// after each read, the channel reads only when asked).
    final class UnreadSocket: ChannelOutboundHandler {
        typealias OutboundIn = IOData
        typealias OutboundOut = IOData

        var holding = true
        private(set) var reads = 0
        private var held: [(IOData, EventLoopPromise<Void>?)] = []
        private(set) var written = ""
        private var context: ChannelHandlerContext?

        func handlerAdded(context: ChannelHandlerContext) { self.context = context }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let data = unwrapOutboundIn(data)
            // What a closed socket would never send (an error answer to the half request its
            // close cut off) is not counted.
            if case .byteBuffer(let buffer) = data, context.channel.isActive { written += String(buffer: buffer) }
            guard holding else { return context.write(wrapOutboundOut(data), promise: promise) }
            held.append((data, promise))
        }

        func flush(context: ChannelHandlerContext) {
            if !holding { context.flush() }
        }

        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }

        /// The peer reads: everything held is written and its promises complete.
        func release() {
            guard let context else { return }
            let taken = held
            held = []
            for (data, promise) in taken { context.write(wrapOutboundOut(data), promise: promise) }
            context.flush()
        }

        /// Answers written (held or not) so far.
        var answers: [String] {
            written.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
        }
    }

    /// A connection of the endpoint on an embedded channel, and the input thread's part played by
    /// ``answerSnapshots()``.
    struct Connection {
        let loop = EmbeddedEventLoop()
        let channel: EmbeddedChannel
        let requests: RequestQueue
        let socket = UnreadSocket()

        init(holding: Bool = true) throws {
            channel = EmbeddedChannel(loop: loop)
            requests = try RequestQueue()
            socket.holding = holding
            let snapshots = SnapshotSource(requests: requests, loop: loop)
            try channel.pipeline.syncOperations.addHandler(socket)
            try MetricsEndpoint.configureConnection(channel.pipeline.syncOperations, snapshots: snapshots)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        }

        /// The input thread answers the snapshots asked for so far; the loop runs what follows.
        func answerSnapshots() {
            loop.run()
            for queued in requests.drain() {
                guard case .snapshot(let complete) = queued.request else { continue }
                complete(MetricsSnapshot(version: "t", startTime: 0, time: 1, configurationLoaded: 0))
            }
            loop.run()
        }

        func send(_ text: String) throws {
            try channel.writeInbound(ByteBuffer(string: text))
            loop.run()
        }
    }

    static let scrape = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    @Test func `a pipelined request is not read while the answer before it waits to be written`() throws {
        let connection = try Connection()
        try connection.send(Self.scrape + Self.scrape + Self.scrape)
        connection.answerSnapshots()
        #expect(connection.socket.answers == ["200"], "the first answer is written, the peer does not take it")
        // What `autoRead` asks after a read: nothing more is read while the answer waits.
        connection.channel.pipeline.read()
        connection.answerSnapshots()
        #expect(connection.socket.reads == 0, "read on while an answer waits")
        #expect(connection.socket.answers == ["200"], "a second answer was made while the first waited")
        // The peer takes the first answer: the second request is answered, then the third.
        connection.socket.release()
        connection.answerSnapshots()
        #expect(connection.socket.answers == ["200", "200"])
        #expect(connection.socket.reads == 0)
        connection.socket.release()
        connection.answerSnapshots()
        #expect(connection.socket.answers == ["200", "200", "200"])
        // Every answer taken, nothing waits: the pending read goes through.
        connection.socket.release()
        connection.loop.run()
        #expect(connection.socket.reads == 1)
        #expect(connection.channel.isActive)
    }

    @Test func `a request trickled a byte at a time is closed at its deadline`() throws {
        let connection = try Connection(holding: false)
        let request = Array((Self.scrape + String(repeating: "X-Padding: trickle\r\n", count: 20)).utf8)
        let timeout = MetricsEndpoint.requestTimeout
        var elapsed = TimeAmount.zero
        var sent = 0
        // Just under the deadline, a byte a second: open, each byte reset the idle timer.
        while elapsed + .seconds(1) < timeout {
            try connection.send(String(decoding: [request[sent]], as: UTF8.self))
            sent += 1
            connection.loop.advanceTime(by: .seconds(1))
            elapsed = elapsed + .seconds(1)
        }
        #expect(connection.channel.isActive, "closed before the deadline")
        try connection.send(String(decoding: [request[sent]], as: UTF8.self))
        connection.loop.advanceTime(by: timeout - elapsed)
        #expect(!connection.channel.isActive, "a request still coming in at its deadline holds the connection")
        #expect(connection.socket.answers.isEmpty)
    }

    @Test func `a whole request stops the clock: the next one has a deadline of its own`() throws {
        let connection = try Connection(holding: false)
        try connection.send("G")
        connection.loop.advanceTime(by: MetricsEndpoint.requestTimeout - .seconds(1))
        try connection.send(String(Self.scrape.dropFirst()))
        connection.answerSnapshots()
        #expect(connection.socket.answers == ["200"])
        // Idle between scrapes, as Prometheus keeps a connection: the deadline is not running.
        connection.loop.advanceTime(by: MetricsEndpoint.requestTimeout * 2)
        #expect(connection.channel.isActive, "a connection between requests was closed by the request deadline")
        try connection.send(Self.scrape)
        connection.answerSnapshots()
        #expect(connection.socket.answers == ["200", "200"])
    }

    /// Requests the endpoint answers with an error, by what is wrong with them.
    static let badRequests: [String: (request: String, status: String)] = [
        "another path": ("GET /other HTTP/1.1\r\nHost: x\r\n\r\n", "404"),
        "another method, with a body": (
            "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n", "405"
        ),
        "not HTTP": ("NOT HTTP AT ALL\r\n\r\n", "400"),
        "a head over the parser's limit": (
            "GET /metrics HTTP/1.1\r\nX: " + String(repeating: "a", count: 100_000) + "\r\n\r\n", "400"
        ),
    ]

    @Test(arguments: badRequests.keys.sorted())
    func `an error answer closes the connection, and nothing after it is read`(wrong: String) throws {
        let (request, status) = try #require(Self.badRequests[wrong])
        let connection = try Connection(holding: false)
        // Whatever follows in the same stream is never answered.
        try? connection.send(request + Self.scrape)
        connection.answerSnapshots()
        #expect(connection.socket.answers == [status])
        #expect(!connection.channel.isActive, "the connection is read on after \(status)")
        #expect(connection.socket.reads == 0)
    }

    @Test func `one peer holds at most its share of the endpoint's connections`() async throws {
        let listener = try Self.listeningSocket()
        let port = try Self.port(of: listener)
        let requests = try RequestQueue()
        let endpoint = try MetricsEndpoint(
            descriptor: listener, loop: MultiThreadedEventLoopGroup.singleton.next(), requests: requests,
            logger: Logger(label: "test"))
        defer { endpoint.shutdown() }
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for _ in 0..<MetricsEndpoint.maxConnectionsPerPeer { held.append(try Self.connect(port)) }
        // One more of the same user is closed as it is accepted, whatever it sends.
        let refused = try Self.connect(port)
        defer { close(refused) }
        #expect(try Self.exchange(refused, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n") == "")
        // The others were admitted: one is answered (a 404 needs no snapshot), and closed after
        // it, which frees its place for the next.
        #expect(try Self.exchange(held[0], "GET /x HTTP/1.1\r\nHost: x\r\n\r\n").hasPrefix("HTTP/1.1 404"))
        let admitted = try await Self.eventually { () throws -> Int32? in
            let fd = try Self.connect(port)
            if try Self.exchange(fd, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n").hasPrefix("HTTP/1.1 404") { return fd }
            close(fd)
            return nil
        }
        close(admitted)
    }

    // MARK: Sockets

    static func listeningSocket() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0 && listen(fd, 16) == 0, "\(String(cString: strerror(errno)))")
        return fd
    }

    static func port(of fd: Int32) throws -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        try #require(named == 0)
        return UInt16(bigEndian: address.sin_port)
    }

    static func connect(_ port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0, "\(String(cString: strerror(errno)))")
        // A generous deadline: the endpoint answers or closes at once; this only ends a hang.
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Sends `request` and reads until the endpoint closes or a whole response is in; "" when it
    /// closed without answering.
    static func exchange(_ fd: Int32, _ request: String) throws -> String {
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 {
                try #require(count == 0 || errno == ECONNRESET, "recv: \(String(cString: strerror(errno)))")
                break
            }
            received += buffer[..<count]
            let text = String(decoding: received, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n"), let length = text.contentLength,
                text.utf8.count - text.utf8.distance(from: text.startIndex, to: end.upperBound) >= length
            {
                break
            }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Tries `attempt` until it gives a value (the endpoint's loop frees a place when it sees the
    /// close, a moment after it): waits on the event, with a generous deadline.
    static func eventually<T>(_ attempt: () throws -> T?) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let value = try attempt() { return value }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CancellationError()
    }
}

extension String {
    fileprivate var contentLength: Int? {
        for line in split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            return Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
