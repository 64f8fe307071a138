/// Where the broker listens: `mqtt://HOST[:PORT]` (plain TCP, port 1883 by default) or
/// `mqtts://HOST[:PORT]` (TLS, 8883), HOST a name, an IPv4 address or a bracketed IPv6 one.
/// Nothing else is taken: no user or password (they have keys of their own, and a password in a
/// URL ends up in logs), no path, query or fragment (MQTT has none).
public struct BrokerURL: Hashable, Sendable, CustomStringConvertible {
    public var tls: Bool
    /// The host as libmosquitto takes it (an IPv6 address without its brackets).
    public var host: String
    public var port: Int

    public init(tls: Bool, host: String, port: Int) {
        self.tls = tls
        self.host = host
        self.port = port
    }

    public var description: String {
        (tls ? "mqtts://" : "mqtt://") + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// Whether the host is this machine (where plain TCP is as private as a Unix socket).
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The URL `text`, or why it is not one.
    public init(parsing text: String) throws(TopicError) {
        func fail(_ why: String) -> TopicError {
            TopicError(
                "'\(TopicLevel.escaped(text))' is not a broker URL: \(why) (mqtt://HOST[:PORT] or mqtts://HOST[:PORT])")
        }
        let rest: Substring
        if text.hasPrefix("mqtts://") {
            tls = true
            rest = text.dropFirst(8)
        } else if text.hasPrefix("mqtt://") {
            tls = false
            rest = text.dropFirst(7)
        } else if let scheme = text.firstRange(of: "://").map({ text[..<$0.lowerBound] }) {
            throw fail("the scheme '\(TopicLevel.escaped(String(scheme)))' is not mqtt or mqtts")
        } else {
            throw fail("it has no scheme")
        }
        var authority = rest
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        if authority.contains("@") {
            throw fail("a user or password in the URL: they go in 'username' and 'password-file'")
        }
        if let c = authority.first(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            throw fail("'\(c)' starts a path, query or fragment, which MQTT has none of")
        }
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw fail("an IPv6 address without its ']'") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("'\(after)' after the address") }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw fail("'\(TopicLevel.escaped(host))' is not an IPv6 address")
            }
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = String(parts[0])
            if parts.count == 2 { portText = parts[1] }
            guard !host.isEmpty else { throw fail("it has no host") }
            guard host.utf8.count <= 253,
                host.unicodeScalars.allSatisfy({
                    ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "-"
                        || $0 == "."
                })
            else {
                throw fail("'\(TopicLevel.escaped(host))' is not a host name (letters, digits, '-' and '.')")
            }
        }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port), portText.allSatisfy(\.isNumber) else {
                throw fail("the port '\(TopicLevel.escaped(String(portText)))' is not a number from 1 to 65535")
            }
            self.port = port
        } else {
            port = tls ? 8883 : 1883
        }
    }
}
