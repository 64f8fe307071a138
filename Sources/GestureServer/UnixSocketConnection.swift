import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A blocking connection to the Unix stream socket at a path, outside NIO: the listener's probe
/// for a stale socket, and benchmark clients that read with plain `read(2)`. The address is
/// NIO's `SocketAddress`, which refuses a path `sun_path` cannot hold.
public enum UnixSocketConnection {
    /// Why a connection could not be made: the errno of `socket` or `connect`, or
    /// `ENAMETOOLONG` for a path too long for `sun_path`.
    public struct Failure: Error, Equatable {
        public var errno: Int32
    }

    /// Connects a blocking, close-on-exec stream socket to `path`; the caller closes it.
    public static func connect(_ path: String) throws(Failure) -> Int32 {
        let address: SocketAddress
        do {
            address = try SocketAddress(unixDomainSocketPath: path)
        } catch {
            throw Failure(errno: ENAMETOOLONG)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(errno: errno) }
        let result = address.withSockAddr { sockaddr, size in Glibc.connect(fd, sockaddr, socklen_t(size)) }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure(errno: code)
        }
        return fd
    }
}
