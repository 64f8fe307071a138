import GestureProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An open connection as a `status` reply lists it: taken on the server thread
/// (``ServerCore/clients()``), turned into the message's entry on the decoder's thread, where the
/// user's name is looked up (the user database may be a file read or a network service: never
/// on the server thread, which is the input thread).
struct ConnectedClient: Sendable {
    let id: ClientID
    let transport: ClientSession.Transport

    var status: StatusMessage.Client {
        switch transport {
        case .unixSocket(let uid):
            StatusMessage.Client(
                client: id.rawValue, transport: .unix, uid: uid.map { UInt32($0) }, user: uid.flatMap(Self.userName))
        case .webSocket(let origin, _, _, _):
            StatusMessage.Client(client: id.rawValue, transport: .websocket, origin: origin)
        }
    }

    /// The user database's name for `uid`, nil when it has none.
    static func userName(_ uid: uid_t) -> String? {
        // The entry's strings live in the buffer: read them while it is there.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { buffer in
            var entry = passwd()
            var found: UnsafeMutablePointer<passwd>?
            guard getpwuid_r(uid, &entry, buffer.baseAddress!, buffer.count, &found) == 0, found != nil,
                let name = entry.pw_name
            else { return nil }
            return String(cString: name)
        }
    }
}
