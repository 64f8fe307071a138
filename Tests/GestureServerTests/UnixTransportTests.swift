import Foundation
import GestureEngine
import GestureProtocol
import GestureServer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The Unix socket transport's own edge cases (the server's epoll loop writes with one
/// `send` per flush and keeps what the kernel does not take): partial writes and EAGAIN, clients
/// that go away mid-line or with bytes still owed to them. A hundred clients, a client that
/// never reads, and a stop with a stalled client are in SocketTests and the daemon's tests.
@Suite(.serialized) struct UnixTransportTests {
    /// A raw, blocking client with a small receive buffer (so the server's sends come up short
    /// soon) and a 20 s receive timeout.
    static func rawClient(_ path: String) throws -> Int32 {
        let fd = try RawSocket.stream()
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard RawSocket.withAddress(path, { connect(fd, $0, $1) }) == 0 else {
            close(fd)
            throw Unexpected("connect: \(String(cString: strerror(errno)))")
        }
        return fd
    }

    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        #expect(write(fd, bytes, bytes.count) == bytes.count)
    }

    /// Reads whole lines until `enough` says so (or the server closes, or 20 s pass).
    static func readLines(_ fd: Int32, until enough: ([String]) -> Bool) -> [String] {
        var lines: [String] = []
        var partial: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !enough(lines) {
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { break }
            for byte in chunk[..<count] {
                if byte == UInt8(ascii: "\n") {
                    lines.append(String(decoding: partial, as: UTF8.self))
                    partial.removeAll(keepingCapacity: true)
                } else {
                    partial.append(byte)
                }
            }
        }
        return lines
    }

    /// Waits until `observer` (subscribed to everything: hello, ok, then one line per gesture)
    /// has `lines` lines: by then the server has fanned out everything published before to
    /// every connection. (Counting, where ``SocketTests/fence(_:seq:)`` searches every line.)
    static func fence(_ observer: LineClient, lines: Int) async throws {
        try await observer.received.wait(for: "\(lines) lines at the observer") { $0.lines.count >= lines }
    }

    static func gesture(_ seq: Int) -> Publication {
        .gesture(Sample.gesture(UInt64(seq)), owner: .configuration)
    }

    @Test func `a client that reads nothing while megabytes pile up gets every byte once it reads`() async throws {
        // ~2 MB of lines that cannot coalesce, far past the socket buffers and the 64 KiB the
        // connection keeps: the sends come up short, then EAGAIN, EPOLLOUT resumes them, and the
        // rest waits in the queue (large enough here never to overflow).
        let events = 5000
        try await ServerFixture.with(limits: ServerLimits(maxQueuedMessages: 10_000, maxQueuedBytes: 64 << 20)) { f in
            let slow = try Self.rawClient(f.path)
            defer { close(slow) }
            Self.send(slow, #"{"type":"subscribe","id":"s"}"# + "\n")
            let observer = try await f.subscriber()
            try await f.delegate!.log.wait(for: "both connections") { $0.connected.count == 2 }
            for start in stride(from: 1, through: events, by: 100) {
                f.server.publish((start..<start + 100).map(Self.gesture))
            }
            // Everything is fanned out: the slow client's share is in the kernel, in its
            // connection's buffer and in its queue.
            try await Self.fence(observer, lines: events + 2)
            let lines = Self.readLines(slow) { $0.last?.contains("\"seq\":\(events),") == true }
            let messages = try lines.map { try JSONDecoder().decode(ServerMessage.self, from: Data($0.utf8)) }
            let seqs = messages.compactMap { message -> UInt64? in
                if case .gesture(let g) = message { return g.seq }
                return nil
            }
            #expect(seqs == Array(1...UInt64(events)), "every line whole, once, in order")
            #expect(f.delegate!.log.value.disconnected.isEmpty)
        }
    }

    @Test func `a client that closes in the middle of a line is dropped and the others carry on`() async throws {
        try await ServerFixture.with { f in
            let other = try await f.subscriber()
            let leaver = try Self.rawClient(f.path)
            _ = Self.readLines(leaver) { !$0.isEmpty }
            Self.send(leaver, #"{"type":"subscribe","id":"#)
            close(leaver)
            try await f.delegate!.log.wait(for: "the leaver's disconnect") { $0.disconnected.count == 1 }
            f.server.publish([Self.gesture(1)])
            guard case .gesture = try await other.next(ofType: "gesture") else { throw Unexpected("no gesture") }
            try await other.roundTrip()
        }
    }

    @Test func `a client that goes away with bytes still owed to it costs the others nothing`() async throws {
        try await ServerFixture.with(limits: ServerLimits(maxQueuedMessages: 10_000, maxQueuedBytes: 64 << 20)) { f in
            let observer = try await f.subscriber()
            let leaver = try Self.rawClient(f.path)
            Self.send(leaver, #"{"type":"subscribe","id":"s"}"# + "\n")
            _ = Self.readLines(leaver) { $0.count >= 2 }  // hello, ok
            f.server.publish((1...2000).map(Self.gesture))
            try await Self.fence(observer, lines: 2000 + 2)
            // Its socket is full and the server holds more for it: the send fails (EPIPE, not
            // SIGPIPE) or the hang-up comes first; either way it is closed and forgotten.
            close(leaver)
            try await f.delegate!.log.wait(for: "the leaver's disconnect") { $0.disconnected.count == 1 }
            f.server.publish([Self.gesture(2001)])
            try await Self.fence(observer, lines: 2001 + 2)
            try await observer.roundTrip()
        }
    }
}
