/// How much a broker may send that the MQTT library holds unfinished. libmosquitto's client
/// allocates an incoming packet whole, at the length its header claims (up to MQTT's 256 MiB),
/// and reads into it as bytes arrive, with no limit of its own (its packet reader leaves the
/// client's case open). So the bytes the TCP connection received (the kernel's count, TLS
/// records included) are watched: past a bound without a packet completed, the connection is
/// dropped, and the memory goes with it.
///
/// | connection | bound |
/// |---|---|
/// | before the CONNACK | ``beforeConnack``: a TLS handshake's certificates and a 4-byte CONNACK |
/// | connected | ``perPacket`` since the last packet completed: an inbound message over 256 bytes is still read whole and refused by its length (a 1 MiB one too); a packet that claims more is not |
public struct ReceiveGuard: Sendable {
    public static let beforeConnack: Int64 = 64 * 1024
    public static let perPacket: Int64 = 2 * 1024 * 1024

    private var connected = false
    private var mark: Int64 = 0

    public init() {}

    /// A new connection: nothing received yet, no CONNACK.
    public mutating func connecting() {
        connected = false
        mark = 0
    }

    /// The CONNACK came, with `received` bytes counted so far.
    public mutating func connack(received: Int64) {
        connected = true
        mark = received
    }

    /// A packet completed (a PUBACK, a message, a SUBACK); `received` bytes counted so far.
    public mutating func packetCompleted(received: Int64) {
        mark = received
    }

    /// Why the connection must go, nil while it keeps within its bound.
    public func problem(received: Int64) -> String? {
        let bound = connected ? Self.perPacket : Self.beforeConnack
        let since = received - mark
        guard since > bound else { return nil }
        return connected
            ? "the broker sent \(since) bytes without completing a packet (at most \(bound)): not read further"
            : "the broker sent \(since) bytes and no CONNACK (at most \(bound) before it): not an MQTT broker"
    }
}
