import GestureProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where the server takes its connections from.
public enum Listener: Sendable, Equatable {
    /// Bind a stream socket at this path: missing parent directories are created (0755), a stale
    /// socket left by a dead daemon is removed (a live one is an error), then the configured mode
    /// and group are applied.
    case path(String)
    /// Adopt a socket that is already bound and listening, as systemd passes it under socket
    /// activation (see ``SystemdSockets``). Its mode and group are the
    /// socket unit's business; the server takes ownership of the descriptor.
    case inherited(descriptor: Int32)

    /// The first descriptor systemd passes (`SD_LISTEN_FDS_START`).
    static let firstInheritedDescriptor: Int32 = 3
}

/// The listening sockets systemd passed under socket activation, by the names their socket units
/// give them (`FileDescriptorName=`): `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` read as
/// `sd_listen_fds_with_names(3)` reads them.
///
/// - `unix` (gestured.socket), or `gestured.socket`, the name units without
///   `FileDescriptorName=` pass: the Unix socket for programs.
/// - `websocket` (gestured-websocket.socket): the WebSocket endpoint's TCP socket.
/// - A single socket not named `websocket` is the Unix socket whatever its name, as gestured took
///   it before it read names (`systemd-socket-activate`, a renamed unit).
///
/// Any other socket would go unused: an error that names it, never dropped in silence.
public struct SystemdSockets: Sendable, Equatable {
    /// The Unix socket's descriptor (nil: bind the configured path).
    public var unix: Int32?
    /// The WebSocket endpoint's descriptor (nil: bind the configured `listen` address).
    public var webSocket: Int32?
    /// The metrics endpoint's descriptor (gestured-metrics.socket; nil: no metrics over HTTP).
    public var metrics: Int32?

    public init(unix: Int32? = nil, webSocket: Int32? = nil, metrics: Int32? = nil) {
        self.unix = unix
        self.webSocket = webSocket
        self.metrics = metrics
    }

    /// The names gestured takes, as they appear in `LISTEN_FDNAMES`.
    public static let unixName = "unix"
    public static let webSocketName = "websocket"
    public static let metricsName = "metrics"
    /// gestured.socket's default name, passed by units without `FileDescriptorName=`.
    static let unitDefaultUnixName = "gestured.socket"

    /// The sockets systemd passed to `processID`, or nil when it was not socket-activated.
    /// Clearing the variables (so children do not see them) is the caller's; the server makes
    /// the descriptors close-on-exec when it adopts them.
    public static func systemdActivated(
        environment: [String: String], processID: Int32
    ) throws(ServerError) -> SystemdSockets? {
        guard let pid = environment["LISTEN_PID"], let fds = environment["LISTEN_FDS"] else { return nil }
        guard Int32(pid) == processID else { return nil }
        guard let count = Int(fds), count >= 0, count <= 1024 else {
            throw ServerError("LISTEN_FDS is '\(fds)', not a number of sockets (0 to 1024)")
        }
        guard count > 0 else { return nil }
        // Without LISTEN_FDNAMES every socket is `unknown`, as sd_listen_fds_with_names says.
        let names =
            environment["LISTEN_FDNAMES"].map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
            ?? Array(repeating: "unknown", count: count)
        guard names.count == count else {
            throw ServerError(
                "LISTEN_FDNAMES names \(names.count) sockets ('\(environment["LISTEN_FDNAMES"] ?? "")') but LISTEN_FDS is \(count)")
        }
        var sockets = SystemdSockets()
        for (index, name) in names.enumerated() {
            let fd = Listener.firstInheritedDescriptor + Int32(index)
            switch name {
            case webSocketName where sockets.webSocket == nil:
                sockets.webSocket = fd
            case metricsName where sockets.metrics == nil:
                sockets.metrics = fd
            case unixName where sockets.unix == nil, unitDefaultUnixName where sockets.unix == nil:
                sockets.unix = fd
            case _ where count == 1:
                sockets.unix = fd
            default:
                let list = names.enumerated().map { "fd \(Listener.firstInheritedDescriptor + Int32($0.offset)) '\($0.element)'" }
                throw ServerError(
                    "systemd passed a socket gestured would not use: fd \(fd), named '\(name)' (all: \(list.joined(separator: ", "))). "
                        + "gestured takes one named '\(unixName)' (gestured.socket), one named '\(webSocketName)' "
                        + "(gestured-websocket.socket) and one named '\(metricsName)' (gestured-metrics.socket): "
                        + "check FileDescriptorName= and Service= of the socket units")
            }
        }
        return sockets
    }
}

/// A server that cannot start: a clear sentence for the log and the terminal.
public struct ServerError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    /// `error` itself when it is a ServerError, else a ServerError describing it.
    static func wrapping(_ error: any Error) -> ServerError {
        error as? ServerError ?? ServerError("\(error)")
    }
}

func errnoDescription(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}

/// The socket file this process created: the only one it ever removes. Identified by device
/// and inode, so a path another process took over meanwhile (a second daemon after a restart,
/// systemd's socket unit) is left alone.
struct CreatedSocket: Sendable {
    let path: String
    let device: UInt64
    let inode: UInt64
}

/// The filesystem side of a socket path. The socket is bound in a private directory (mode 0700,
/// made by `mkdtemp`), given its group and mode there, and renamed into place: it never exists at
/// its path with the mode the umask happened to give it, so no one outside the configured group
/// can connect even for a moment, whatever the umask. `rename` also replaces a stale socket in
/// one step. Nothing this process did not create is ever removed.
public enum SocketFile {
    /// The private directory beside the socket and the socket's name in it: mkdtemp's template
    /// (`.gXXXXXX`) and `s`, as ``SocketPath/privateBinding`` counts them.
    private static let privateBinding = SocketPath.privateBinding

    /// Checks `path` before binding: its length (``SocketPath``), its directory (which must exist,
    /// except the default's, made 0755), and what is there now — nothing, or a stale socket nobody listens on
    /// (the rename replaces it). A live socket or a file that is not a socket is an error, and is
    /// left as it is.
    static func prepare(_ path: String) throws(ServerError) {
        do {
            _ = try SocketPath(path, for: .listen)
        } catch {
            throw ServerError(error.description)
        }
        try prepareDirectory(of: path)
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw ServerError("cannot inspect \(path): \(errnoDescription())")
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw ServerError("\(path) exists and is not a socket; refusing to replace it")
        }
        switch probe(path) {
        case 0:
            throw ServerError("another process is already listening on \(path)")
        case ECONNREFUSED:
            // Nobody listens: a socket left by a daemon that died. The rename replaces it.
            return
        case let code:
            throw ServerError("cannot tell whether \(path) is in use: \(errnoDescription(code))")
        }
    }

    /// Makes the private directory (mode 0700) beside `path`; returns where to bind in it.
    static func makePrivatePath(beside path: String) throws(ServerError) -> String {
        // `/.gXXXXXX/s`: the template is the part before the last `/`, the socket's name after it.
        let name = SocketPath.directory(of: privateBinding)
        var template = Array((SocketPath.directory(of: path) + name).utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ServerError("cannot create a private directory beside \(path): \(errnoDescription())")
        }
        return String(cString: made) + privateBinding.dropFirst(name.utf8.count)
    }

    /// Gives the socket bound at `temporary` (in its private directory) its group and mode,
    /// renames it to `path` and removes the private directory. On error everything it made is
    /// removed and `path` is untouched.
    static func publish(
        _ temporary: String, at path: String, mode: UInt32?, group: String?
    ) throws(ServerError) -> CreatedSocket {
        do throws(ServerError) {
            if let group {
                let gid = try groupID(group)
                guard chown(temporary, uid_t.max, gid) == 0 else {
                    throw ServerError("cannot give \(path) to group \(group): \(errnoDescription())")
                }
            }
            if let mode {
                guard chmod(temporary, mode_t(mode)) == 0 else {
                    throw ServerError(
                        "cannot set mode \(String(mode, radix: 8)) on \(path): \(errnoDescription())")
                }
            }
            var info = stat()
            guard lstat(temporary, &info) == 0 else {
                throw ServerError("cannot inspect the new socket for \(path): \(errnoDescription())")
            }
            guard rename(temporary, path) == 0 else {
                throw ServerError("cannot move the new socket to \(path): \(errnoDescription())")
            }
            discardPrivate(temporary)
            return CreatedSocket(path: path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        } catch {
            discardPrivate(temporary)
            throw error
        }
    }

    /// Removes what is left of a private bind (the socket if it is still there, the directory).
    static func discardPrivate(_ temporary: String) {
        unlink(temporary)
        rmdir(SocketPath.directory(of: temporary))
    }

    /// Removes the socket this process created, if the path still names that very file.
    static func remove(_ created: CreatedSocket) {
        var info = stat()
        guard lstat(created.path, &info) == 0, UInt64(info.st_dev) == created.device,
            UInt64(info.st_ino) == created.inode
        else { return }
        unlink(created.path)
    }

    /// Tries to connect to `path`: 0 when something listens, else the errno.
    private static func probe(_ path: String) -> Int32 {
        do throws(UnixSocketConnection.Failure) {
            close(try UnixSocketConnection.connect(path))
            return 0
        } catch {
            return error.errno
        }
    }

    /// The one directory the daemon makes for a socket: the default path's, `/run/gestured` (on
    /// the tmpfs `/run`, empty after a boot). Anywhere else a missing directory is a mistyped
    /// path, and making it (as root, perhaps) would leave directories nobody asked for.
    static let ownDirectory = SocketPath.directory(of: GestureProtocol.defaultSocketPath)

    /// The socket's directory exists (and is one), or is ``ownDirectory`` and is made here.
    private static func prepareDirectory(of path: String) throws(ServerError) {
        let directory = SocketPath.directory(of: path)
        var info = stat()
        if stat(directory, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw ServerError("\(directory) is not a directory, so the socket \(path) cannot be made in it")
            }
            return
        }
        guard errno == ENOENT else { throw ServerError("cannot inspect \(directory): \(errnoDescription())") }
        guard directory == ownDirectory else {
            throw ServerError(
                "the socket's directory \(directory) does not exist: create it first, or choose a socket path in a "
                    + "directory that exists (only \(ownDirectory), the default's, is made)")
        }
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw ServerError("cannot create directory \(directory): \(errnoDescription())")
        }
    }

    /// A group name or a numeric gid.
    public static func groupID(_ name: String) throws(ServerError) -> gid_t {
        if let numeric = gid_t(name) { return numeric }
        var entry = group()
        var result: UnsafeMutablePointer<group>? = nil
        var buffer = [CChar](repeating: 0, count: 16_384)
        let code = getgrnam_r(name, &entry, &buffer, buffer.count, &result)
        guard code == 0, result != nil else {
            throw ServerError(
                code == 0 ? "no group named '\(name)'" : "cannot look up group '\(name)': \(errnoDescription(code))")
        }
        return entry.gr_gid
    }

    /// Inherited descriptors arrive without FD_CLOEXEC; set it, as `sd_listen_fds` does.
    static func setCloseOnExec(_ fd: Int32) throws(ServerError) {
        let flags = fcntl(fd, F_GETFD)
        guard flags >= 0, fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0 else {
            throw ServerError("the inherited socket (fd \(fd)) is unusable: \(errnoDescription())")
        }
    }
}

extension SystemdSockets {
    /// Throws unless `descriptor`, a socket systemd passed (`described` says which), is a TCP
    /// (IPv4 or IPv6 stream) socket that listens; `example` is an address and port its unit's
    /// `ListenStream=` could give. The WebSocket and metrics endpoints check theirs so.
    public static func checkListeningTCP(_ descriptor: Int32, described: String, example: String) throws(ServerError) {
        func option(_ name: Int32) throws(ServerError) -> Int32 {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, name, &value, &length) == 0 else {
                throw ServerError("\(described) is unusable: \(errnoDescription())")
            }
            return value
        }
        let domain = try option(SO_DOMAIN)
        guard domain == AF_INET || domain == AF_INET6, try option(SO_TYPE) == Int32(SOCK_STREAM.rawValue) else {
            throw ServerError(
                "\(described) is not a TCP socket: its ListenStream= must be an address and port, such as \(example)")
        }
        guard try option(SO_ACCEPTCONN) != 0 else {
            throw ServerError("\(described) is not listening")
        }
    }
}
