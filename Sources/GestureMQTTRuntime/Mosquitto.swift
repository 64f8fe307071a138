import CMosquitto
import GestureMQTT
import Glibc

/// libmosquitto's client, the only file that calls it: one `struct mosquitto` driven by the
/// caller's thread through the library's API for external event loops (`mosquitto_socket`,
/// `mosquitto_want_write`, `mosquitto_loop_read`/`_write`/`_misc`). The library starts no thread
/// of its own; every call, and every callback, happens on the thread that calls ``read()``,
/// ``write()``, ``misc()``, ``publish(_:)``.
///
/// Callbacks do not act: they record ``Event``s, which the caller takes with ``takeEvents()``
/// after each call, so nothing runs inside the library's own code. A message's payload is copied
/// only when it is at most ``keptPayloadBytes`` long (a longer one is refused by its length).
final class Mosquitto {
    enum Event: Equatable {
        /// CONNACK: 0 accepted, otherwise the broker's refusal (`mosquitto_connack_string`).
        case connected(Int32)
        /// The connection ended: 0 after our own DISCONNECT, otherwise the library's error.
        case disconnected(Int32)
        /// Message `mid` is done: PUBACK for QoS 1, written for QoS 0.
        case published(Int32)
        /// SUBACK.
        case subscribed
        case message(topic: String, length: Int, payload: [UInt8]?, retained: Bool)
        /// What the library logged at warning or error level (TLS failures say why here).
        case log(String)
    }

    /// A payload longer than this is not copied (an inbound topic takes at most 256 bytes).
    static let keptPayloadBytes = InboundTopic.maximumPayloadBytes

    private let lib: LibMosquitto
    private let handle: OpaquePointer
    private let clientID: String
    private var events: [Event] = []

    /// A client with `clientID` and a clean session (the broker keeps nothing for it between
    /// connections: what must survive an outage waits in our own queue).
    init(clientID: String) throws(BrokerError) {
        lib = try LibMosquitto.shared.get()
        self.clientID = clientID
        guard let handle = lib.new(clientID, true, nil) else {
            throw BrokerError("mosquitto_new: \(String(cString: strerror(errno)))")
        }
        self.handle = handle
        lib.userDataSet(handle, Unmanaged.passUnretained(self).toOpaque())
        setCallbacks()
    }

    deinit {
        lib.destroy(handle)
    }

    /// Forgets the connection and every setting (`mosquitto_reinitialise`: the socket is
    /// closed, queued packets dropped), for the next attempt.
    func reset() throws(BrokerError) {
        try check(lib.reinitialise(handle, clientID, true, Unmanaged.passUnretained(self).toOpaque()), "reset")
        setCallbacks()
        events.removeAll()
    }

    private func setCallbacks() {
        lib.connectCallbackSet(handle) { _, object, rc in
            Mosquitto.from(object).events.append(.connected(rc))
        }
        lib.disconnectCallbackSet(handle) { _, object, rc in
            Mosquitto.from(object).events.append(.disconnected(rc))
        }
        lib.publishCallbackSet(handle) { _, object, mid in
            Mosquitto.from(object).events.append(.published(mid))
        }
        lib.subscribeCallbackSet(handle) { _, object, _, _, _ in
            Mosquitto.from(object).events.append(.subscribed)
        }
        lib.messageCallbackSet(handle) { _, object, message in
            guard let m = message?.pointee else { return }
            let length = Int(max(0, m.payloadlen))
            let topic = m.topic.map { String(cString: $0) } ?? ""
            var payload: [UInt8]?
            if length <= Mosquitto.keptPayloadBytes {
                payload = m.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
            }
            Mosquitto.from(object).events.append(
                .message(topic: topic, length: length, payload: payload, retained: m.retain))
        }
        lib.logCallbackSet(handle) { _, object, level, text in
            guard level & Int32(MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0, let text else { return }
            Mosquitto.from(object).events.append(.log(String(cString: text)))
        }
    }

    private static func from(_ object: UnsafeMutableRawPointer?) -> Mosquitto {
        Unmanaged<Mosquitto>.fromOpaque(object!).takeUnretainedValue()
    }

    /// What the callbacks recorded since the last call.
    func takeEvents() -> [Event] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// The settings of one connection: TLS, credentials, the will, the window.
    func configure(
        _ broker: BrokerSettings, password: String?, will: OutgoingMessage, window: Int
    ) throws(BrokerError) {
        try check(lib.intOption(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311), "protocol version")
        // Nagle's algorithm would hold a gesture back until the previous one's PUBACK.
        try check(lib.intOption(handle, MOSQ_OPT_TCP_NODELAY, 1), "TCP_NODELAY")
        try check(lib.maxInflightMessagesSet(handle, UInt32(window)), "max_inflight_messages")
        if broker.url.tls {
            // No CA file: the system's store. An encrypted key is refused (its password callback
            // gives none) rather than asked for on a terminal.
            let rc = lib.tlsSet(
                handle, broker.caFile, broker.caFile == nil ? "/etc/ssl/certs" : nil, broker.certFile, broker.keyFile
            ) { _, _, _, _ in 0 }
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                throw BrokerError(
                    "TLS settings refused (\(describe(rc))): ca-file, cert-file and key-file must be readable "
                        + "PEM files, the key unencrypted")
            }
            try check(lib.tlsInsecureSet(handle, false), "TLS host name check")
        }
        if let username = broker.username {
            try check(lib.usernamePwSet(handle, username, password), "username")
        }
        let rc = will.payload.withUnsafeBytes { bytes in
            lib.willSet(handle, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos), will.retain)
        }
        try check(rc, "will")
    }

    /// Starts connecting without blocking (the TCP connect, then TLS and CONNECT as the socket
    /// allows, through ``read()`` and ``write()``).
    func connect(_ url: BrokerURL, keepalive: Int) throws(BrokerError) {
        let rc = lib.connectAsync(handle, url.host, Int32(url.port), Int32(keepalive))
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw BrokerError(describe(rc)) }
    }

    /// The connection's socket, -1 without one.
    var socket: Int32 { lib.socket(handle) }
    /// Whether the library has bytes to write (or TLS wants to write).
    var wantsWrite: Bool { lib.wantWrite(handle) }

    /// Reads what arrived; a non-zero result is the error that ended the connection.
    func read() -> Int32 { lib.loopRead(handle, 1) }
    func write() -> Int32 { lib.loopWrite(handle, 1) }
    /// Keepalive: a PINGREQ when due, the connection dropped when the broker missed one.
    func misc() -> Int32 { lib.loopMisc(handle) }

    /// Hands `p` to the library; its message id, or the error.
    func publish(_ p: OutgoingMessage) -> Result<Int32, BrokerError> {
        var mid: Int32 = 0
        let rc = p.payload.withUnsafeBytes { bytes in
            lib.publish(handle, &mid, p.topic, Int32(bytes.count), bytes.baseAddress, Int32(p.qos), p.retain)
        }
        return rc == MOSQ_ERR_SUCCESS.rawValue ? .success(mid) : .failure(BrokerError(describe(rc)))
    }

    func subscribe(_ topic: String, qos: Int) throws(BrokerError) {
        try check(lib.subscribe(handle, nil, topic, Int32(qos)), "subscribe \(topic)")
    }

    /// Sends DISCONNECT (the broker then publishes no will).
    func disconnect() { _ = lib.disconnect(handle) }

    private func check(_ rc: Int32, _ what: String) throws(BrokerError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw BrokerError("\(what): \(describe(rc))") }
    }

    /// A library error as a sentence (`the connection was lost`), with errno's for MOSQ_ERR_ERRNO.
    func describe(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: Glibc.strerror(errno)) }
        return String(cString: lib.strerror(rc))
    }

    /// The broker's CONNACK refusal as a sentence.
    func describeRefusal(_ rc: Int32) -> String { String(cString: lib.connackString(rc)) }
}

/// libmosquitto's functions, looked up in Debian's libmosquitto1 (`dlopen`) the first time
/// `gestured mqtt` needs them. The binary is also the daemon, and linking the library would load it
/// and OpenSSL into every `gestured run` too: 1.7 MB more resident memory for a daemon that never
/// speaks MQTT (measured with the library preloaded into an idle daemon). The header's types and
/// constants come from the CMosquitto module as usual; only the calls go through this table.
struct LibMosquitto: @unchecked Sendable {  // C function pointers, set once and never changed
    typealias Client = OpaquePointer
    typealias StatusCallback = @convention(c) (Client?, UnsafeMutableRawPointer?, Int32) -> Void
    typealias SubscribeCallback =
        @convention(c) (
            Client?, UnsafeMutableRawPointer?, Int32, Int32, UnsafePointer<Int32>?
        ) -> Void
    typealias MessageCallback =
        @convention(c) (Client?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) -> Void
    typealias LogCallback = @convention(c) (Client?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void
    typealias PasswordCallback =
        @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32

    let new: @convention(c) (UnsafePointer<CChar>?, Bool, UnsafeMutableRawPointer?) -> Client?
    let destroy: @convention(c) (Client?) -> Void
    let reinitialise: @convention(c) (Client?, UnsafePointer<CChar>?, Bool, UnsafeMutableRawPointer?) -> Int32
    let userDataSet: @convention(c) (Client?, UnsafeMutableRawPointer?) -> Void
    let connectCallbackSet: @convention(c) (Client?, StatusCallback?) -> Void
    let disconnectCallbackSet: @convention(c) (Client?, StatusCallback?) -> Void
    let publishCallbackSet: @convention(c) (Client?, StatusCallback?) -> Void
    let subscribeCallbackSet: @convention(c) (Client?, SubscribeCallback?) -> Void
    let messageCallbackSet: @convention(c) (Client?, MessageCallback?) -> Void
    let logCallbackSet: @convention(c) (Client?, LogCallback?) -> Void
    let intOption: @convention(c) (Client?, mosq_opt_t, Int32) -> Int32
    let maxInflightMessagesSet: @convention(c) (Client?, UInt32) -> Int32
    let tlsSet:
        @convention(c) (
            Client?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
            PasswordCallback?
        ) -> Int32
    let tlsInsecureSet: @convention(c) (Client?, Bool) -> Int32
    let usernamePwSet: @convention(c) (Client?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    let willSet: @convention(c) (Client?, UnsafePointer<CChar>?, Int32, UnsafeRawPointer?, Int32, Bool) -> Int32
    let connectAsync: @convention(c) (Client?, UnsafePointer<CChar>?, Int32, Int32) -> Int32
    let socket: @convention(c) (Client?) -> Int32
    let wantWrite: @convention(c) (Client?) -> Bool
    let loopRead: @convention(c) (Client?, Int32) -> Int32
    let loopWrite: @convention(c) (Client?, Int32) -> Int32
    let loopMisc: @convention(c) (Client?) -> Int32
    let publish:
        @convention(c) (
            Client?, UnsafeMutablePointer<Int32>?, UnsafePointer<CChar>?, Int32, UnsafeRawPointer?, Int32, Bool
        ) -> Int32
    let subscribe: @convention(c) (Client?, UnsafeMutablePointer<Int32>?, UnsafePointer<CChar>?, Int32) -> Int32
    let disconnect: @convention(c) (Client?) -> Int32
    let strerror: @convention(c) (Int32) -> UnsafePointer<CChar>
    let connackString: @convention(c) (Int32) -> UnsafePointer<CChar>

    /// The library, loaded and initialized (`mosquitto_lib_init`) once, or why not.
    static let shared = Result { () throws(BrokerError) in try LibMosquitto() }

    /// The soname of Debian's libmosquitto1 (libmosquitto 2.x's ABI).
    static let soname = "libmosquitto.so.1"

    private init() throws(BrokerError) {
        guard let library = dlopen(Self.soname, RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "not found"
            throw BrokerError("gestured mqtt needs libmosquitto (Debian's libmosquitto1): \(why)")
        }
        func symbol<T>(_ name: String) throws(BrokerError) -> T {
            guard let address = dlsym(library, name) else {
                throw BrokerError("\(Self.soname) has no \(name): not libmosquitto 2")
            }
            return unsafeBitCast(address, to: T.self)
        }
        new = try symbol("mosquitto_new")
        destroy = try symbol("mosquitto_destroy")
        reinitialise = try symbol("mosquitto_reinitialise")
        userDataSet = try symbol("mosquitto_user_data_set")
        connectCallbackSet = try symbol("mosquitto_connect_callback_set")
        disconnectCallbackSet = try symbol("mosquitto_disconnect_callback_set")
        publishCallbackSet = try symbol("mosquitto_publish_callback_set")
        subscribeCallbackSet = try symbol("mosquitto_subscribe_callback_set")
        messageCallbackSet = try symbol("mosquitto_message_callback_set")
        logCallbackSet = try symbol("mosquitto_log_callback_set")
        intOption = try symbol("mosquitto_int_option")
        maxInflightMessagesSet = try symbol("mosquitto_max_inflight_messages_set")
        tlsSet = try symbol("mosquitto_tls_set")
        tlsInsecureSet = try symbol("mosquitto_tls_insecure_set")
        usernamePwSet = try symbol("mosquitto_username_pw_set")
        willSet = try symbol("mosquitto_will_set")
        connectAsync = try symbol("mosquitto_connect_async")
        socket = try symbol("mosquitto_socket")
        wantWrite = try symbol("mosquitto_want_write")
        loopRead = try symbol("mosquitto_loop_read")
        loopWrite = try symbol("mosquitto_loop_write")
        loopMisc = try symbol("mosquitto_loop_misc")
        publish = try symbol("mosquitto_publish")
        subscribe = try symbol("mosquitto_subscribe")
        disconnect = try symbol("mosquitto_disconnect")
        strerror = try symbol("mosquitto_strerror")
        connackString = try symbol("mosquitto_connack_string")
        let initialize: @convention(c) () -> Int32 = try symbol("mosquitto_lib_init")
        guard initialize() == MOSQ_ERR_SUCCESS.rawValue else { throw BrokerError("mosquitto_lib_init failed") }
    }
}

/// Why the broker could not be used, in a sentence.
public struct BrokerError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
