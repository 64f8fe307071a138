/// A path of the protocol's Unix socket, checked: the one check of every socket path gestured
/// uses — `socket.path` in the configuration, `run --socket`, `listen --socket`, the client
/// library (and so every command built on it).
///
/// The limit is SwiftNIO's, through which every gestured socket is bound and connected:
/// `SocketAddress(unixDomainSocketPath:)` takes at most 103 bytes, the size of
/// `sockaddr_un.sun_path` on the BSDs less its NUL (Linux's holds 107, but a path NIO refuses can
/// be neither bound nor reached by gestured). A path the daemon listens at has one more limit:
/// the socket is bound first in a private directory beside it (`.gXXXXXX/s`, so that it never
/// exists at its path with the wrong mode) and renamed into place, and that path must fit too.
public struct SocketPath: Hashable, Sendable, CustomStringConvertible {
    /// The longest path, in bytes of UTF-8.
    public static let maxBytes = 103
    /// What the daemon appends to the directory to bind in private first.
    public static let privateBinding = "/.gXXXXXX/s"

    /// How a path is used.
    public enum Use: Hashable, Sendable {
        /// A client connects to it.
        case connect
        /// The daemon binds and listens at it.
        case listen
    }

    public let path: String

    /// `path` if it can be used so; else the error says why, in one sentence.
    public init(_ path: String, for use: Use) throws(SocketPathError) {
        let bytes = path.utf8.count
        guard bytes > 0 else { throw SocketPathError("the socket path is empty") }
        guard !path.utf8.contains(0) else { throw SocketPathError("socket path '\(path)' contains a NUL byte") }
        guard bytes <= Self.maxBytes else {
            throw SocketPathError(
                "socket path '\(path)' is \(bytes) bytes long; a Unix socket path may be at most \(Self.maxBytes) bytes"
            )
        }
        if use == .listen {
            let directory = Self.directory(of: path)
            let most = Self.maxBytes - Self.privateBinding.utf8.count
            guard directory.utf8.count <= most else {
                throw SocketPathError(
                    "the directory of socket path '\(path)' is \(directory.utf8.count) bytes long; the daemon binds the "
                        + "socket in a private directory there first ('\(Self.privateBinding.dropFirst())'), so it may be "
                        + "at most \(most) bytes")
            }
        }
        self.path = path
    }

    /// The directory part: everything before the last `/` (`.` without one, `/` for `/name`).
    public static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    public var description: String { path }
}

/// Why a path cannot be a gestured socket (``SocketPath``).
public struct SocketPathError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
