import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A hostile client on a raw socket, of either transport: it writes without reading, as fast as
/// the kernel takes its bytes, and so learns from the kernel whether the server still reads it —
/// a write that would block means the server's receive buffer and the client's send buffer are
/// full, because the server stopped reading. Then it reads what the server sent, on a thread of
/// its own, while the test writes more.
final class FloodingClient: Sendable {
    enum Framing: Sendable {
        /// Lines on the Unix socket.
        case lines
        /// Masked text frames on a WebSocket.
        case webSocket
    }

    struct Received: Sendable {
        /// Lines, or the payloads of text frames.
        var messages: [String] = []
        /// The payloads of pong frames (WebSocket).
        var pongs: [[UInt8]] = []
        /// The code of the close frame the server sent (WebSocket).
        var closeCode: UInt16?
        /// How the connection ended: nil while it is open, 0 at the end of input, else the errno
        /// of the failed read (ECONNRESET: the server closed with input of the client unread).
        var end: Int32?
    }

    let fd: Int32
    let framing: Framing
    let received = Observed(Received())

    private init(fd: Int32, framing: Framing) {
        self.fd = fd
        self.framing = framing
        // What the kernel holds of a flood for the server: 64 KiB asked, which Linux doubles
        // (TCP would grow it to megabytes, hundreds of thousands of small requests to answer).
        var size: Int32 = 64 * 1024
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { Glibc.close(fd) }

    /// Connects to the server's Unix socket.
    static func unix(_ path: String) throws -> FloodingClient {
        let fd = try RawSocket.stream()
        guard RawSocket.withAddress(path, { connect(fd, $0, $1) }) == 0 else {
            Glibc.close(fd)
            throw Unexpected("connect: \(String(cString: strerror(errno)))")
        }
        return FloodingClient(fd: fd, framing: .lines)
    }

    /// Connects to the WebSocket endpoint on 127.0.0.1 and completes the handshake from `origin`.
    static func webSocket(port: Int, origin: String = WebSocketTests.origin) throws -> FloodingClient {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Unexpected("socket: \(String(cString: strerror(errno)))") }
        // A small receive window, set before connecting: the server's replies fill the way to
        // this client soon (TCP's buffers would otherwise grow to megabytes of them).
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let client = FloodingClient(fd: fd, framing: .webSocket)
        guard connected == 0 else { throw Unexpected("connect: \(String(cString: strerror(errno)))") }
        client.setReceiveTimeout()
        try client.write(
            Array(
                ("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + "Origin: \(origin)\r\n\r\n").utf8))
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard read(fd, &byte, 1) == 1 else { throw Unexpected("no answer to the handshake") }
            head.append(byte)
        }
        let answer = String(decoding: head, as: UTF8.self)
        guard answer.hasPrefix("HTTP/1.1 101") else { throw Unexpected("no upgrade: \(answer)") }
        return client
    }

    /// `request` as the transport carries it: a line, or a masked text frame.
    func encode(_ request: String) -> [UInt8] {
        switch framing {
        case .lines: Array((request + "\n").utf8)
        case .webSocket: WebSocketClient.frame(opcode: WebSocketClient.Opcode.text, Array(request.utf8))
        }
    }

    struct Flood {
        /// Requests the kernel took whole.
        var sent: Int
        /// What is left of the one it took part of (empty if none).
        var rest: [UInt8]
    }

    /// Writes `bytes` (one request, already encoded) again and again, never reading, until a
    /// write would block. Throws when the server closes the connection meanwhile, or when `most`
    /// go without one blocking (the server reads whatever comes).
    func flood(_ bytes: [UInt8], most: Int) throws -> Flood {
        try flood(most: most) { _ in bytes }
    }

    /// ``flood(_:most:)`` with the `n`th request's bytes from `request`. Requests go out about
    /// 16 KiB at a time: the kernel's buffers then hold what their sizes say, not a few hundred
    /// small writes' worth of bookkeeping.
    func flood(most: Int, _ request: (Int) -> [UInt8]) throws -> Flood {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(fd, F_SETFL, flags) }
        var sent = 0
        while sent < most {
            var chunk: [UInt8] = []
            var ends: [Int] = []
            while chunk.count < 16 * 1024, sent + ends.count < most {
                chunk += request(sent + ends.count)
                ends.append(chunk.count)
            }
            let written = chunk.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written == chunk.count {
                sent += ends.count
                continue
            }
            guard written >= 0 else {
                let failure = errno
                guard failure == EAGAIN || failure == EWOULDBLOCK else {
                    throw Unexpected(
                        "the server ended the connection after \(sent) requests: \(String(cString: strerror(failure)))")
                }
                return Flood(sent: sent, rest: [])
            }
            // Requests sent whole, and what is left of the one cut short (none when the write
            // ended between two).
            let whole = ends.prefix { $0 <= written }.count
            let start = whole == 0 ? 0 : ends[whole - 1]
            return Flood(sent: sent + whole, rest: written > start ? Array(chunk[written..<ends[whole]]) : [])
        }
        throw Unexpected("the server took \(most) requests without the kernel ever holding one back: it reads whatever comes")
    }

    /// Writes all of `bytes`, blocking until the server has taken them.
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw Unexpected("write: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    /// Shuts down its sending side (the server sees the end of its input).
    func shutdownOutput() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    private func setReceiveTimeout() {
        var timeout = timeval(tv_sec: 600, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads on a thread of its own until the connection ends (or stays silent for ten minutes: a
    /// hang guard, longer than a loaded machine keeps a test process from running).
    func startReading() {
        setReceiveTimeout()
        Thread.detachNewThread { [self] in readUntilEnd() }
    }

    private func readUntilEnd() {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else {
                let end = count == 0 ? 0 : errno
                received.update { $0.end = end }
                return
            }
            pending += chunk[..<count]
            switch framing {
            case .lines: takeLines(&pending)
            case .webSocket: takeFrames(&pending)
            }
        }
    }

    private func takeLines(_ pending: inout [UInt8]) {
        var lines: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        if !lines.isEmpty { received.update { $0.messages += lines } }
    }

    /// The server's frames: unmasked, never fragmented.
    private func takeFrames(_ pending: inout [UInt8]) {
        while pending.count >= 2 {
            var length = Int(pending[1] & 0x7F)
            var header = 2
            if length == 126 {
                guard pending.count >= 4 else { return }
                length = Int(pending[2]) << 8 | Int(pending[3])
                header = 4
            } else if length == 127 {
                guard pending.count >= 10 else { return }
                length = pending[2..<10].reduce(0) { $0 << 8 | Int($1) }
                header = 10
            }
            guard pending.count >= header + length else { return }
            let opcode = pending[0] & 0x0F
            let payload = Array(pending[header..<header + length])
            pending.removeSubrange(..<(header + length))
            received.update { r in
                switch opcode {
                case WebSocketClient.Opcode.text: r.messages.append(String(decoding: payload, as: UTF8.self))
                case WebSocketClient.Opcode.pong: r.pongs.append(payload)
                case WebSocketClient.Opcode.close:
                    r.closeCode = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
                default: break
                }
            }
        }
    }
}
