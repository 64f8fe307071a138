import GestureEngine
import GestureProtocol
import Glibc
import TouchInput

// Strict Codable for the configuration file: unknown keys are errors, every value is checked
// where it is read, so the loader can point at the offending line and column.

extension DaemonConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case socket, websocket, devices, regions, recognizers, clients
        case logLevel = "log-level"
        case idleAfterMS = "idle-after-ms"
        case wakeAfterIdle = "wake-after-idle"
        case stuckContact = "stuck-contact"
        case recordGroup = "record-group"
        case touchesGroup = "touches-group"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "the configuration")
        socket = try c.decode(.socket, default: SocketConfiguration())
        // `websocket:` with nothing after it is neither an endpoint (it needs its origins) nor
        // none (then the key would be absent): ask which was meant, as `websocket: {}` does.
        if c.contains(.websocket), try c.decodeNil(forKey: .websocket) {
            throw c.corrupted(
                .websocket,
                "'websocket' has no value: give it 'allowed-origins' (and 'listen') to serve "
                    + "WebSockets, or remove the key for none")
        }
        websocket = try c.decodeIfPresent(WebSocketConfiguration.self, forKey: .websocket)
        devices = try c.decode(.devices, default: [])
        regions = try c.decode(.regions, default: [])
        // Absent means the built-in set; `recognizers:` with nothing after it (everything below
        // commented out, say) is neither that nor an empty list: ask which was meant.
        if c.contains(.recognizers), try c.decodeNil(forKey: .recognizers) {
            throw c.corrupted(
                .recognizers,
                "'recognizers' has no value: list recognizers, write 'recognizers: []' for none, "
                    + "or remove the key to run the built-in set")
        }
        recognizers = try c.decodeIfPresent([RecognizerSpec].self, forKey: .recognizers)
        clients = try c.decode(.clients, default: ClientPolicy())
        logLevel = try c.decode(.logLevel, default: .info)
        panels = PanelDefaults(
            idleAfterMS: try DeviceConfiguration.decodeIdleAfter(c, .idleAfterMS),
            wakeAfterIdle: try c.decode(.wakeAfterIdle, default: false),
            stuckContact: try c.decodeIfPresent(StuckContactLimit.self, forKey: .stuckContact))
        if panels.wakeAfterIdle && panels.idleAfterMS == nil {
            throw c.corrupted(.wakeAfterIdle, DeviceConfiguration.wakeNeedsIdle)
        }
        for (i, entry) in devices.enumerated()
        where entry.wakeAfterIdle == true && entry.idleAfterMS == nil && panels.idleAfterMS == nil {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath + [
                        CodingKeys.devices, AnyCodingKey(intValue: i)!, DeviceConfiguration.CodingKeys.wakeAfterIdle,
                    ], debugDescription: DeviceConfiguration.wakeNeedsIdle))
        }
        recordGroup = try c.decodeIfPresent(String.self, forKey: .recordGroup)
        if let recordGroup, recordGroup.isEmpty {
            throw c.corrupted(.recordGroup, "'record-group' must name a group (or give a gid)")
        }
        recordGroupID = recordGroup.flatMap { UInt32($0) }
        touchesGroup = try c.decodeIfPresent(String.self, forKey: .touchesGroup)
        if let touchesGroup, touchesGroup.isEmpty {
            throw c.corrupted(.touchesGroup, "'touches-group' must name a group (or give a gid)")
        }
        touchesGroupID = touchesGroup.flatMap { UInt32($0) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(logLevel, forKey: .logLevel)
        try c.encode(socket, forKey: .socket)
        try c.encodeIfPresent(websocket, for: .websocket)
        try c.encode(devices, forKey: .devices)
        try c.encode(regions, forKey: .regions)
        try c.encodeIfPresent(recognizers, for: .recognizers)
        try c.encode(clients, forKey: .clients)
        try c.encodeIfPresent(panels.idleAfterMS, for: .idleAfterMS)
        if panels.wakeAfterIdle { try c.encode(true, forKey: .wakeAfterIdle) }
        try c.encodeIfPresent(panels.stuckContact, for: .stuckContact)
        try c.encodeIfPresent(recordGroup, for: .recordGroup)
        try c.encodeIfPresent(touchesGroup, for: .touchesGroup)
    }
}

extension StuckContactLimit: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case afterMS = "after-ms"
        case withinMM = "within-mm"
    }

    public static let defaultWithin = Millimeters(3)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'stuck-contact'")
        guard c.contains(.afterMS) else {
            throw decoder.missing(
                CodingKeys.afterMS,
                "'stuck-contact' needs 'after-ms': how long a contact stays still before it is ended")
        }
        let after = try c.decode(
            .afterMS, default: 0, within: 1000...86_400_000, expect: "milliseconds from 1000 to 86400000")
        let within = try c.decode(
            .withinMM, default: Self.defaultWithin.value, within: 0.1...100, expect: "millimetres from 0.1 to 100")
        self.init(after: .milliseconds(Int64(after)), within: Millimeters(within))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(after.microseconds / 1000, forKey: .afterMS)
        try c.encode(within.value, forKey: .withinMM)
    }
}

extension PanelWake.ScreenFile: Codable {
    static let expected = "one of 'dpms', 'bl-power' or 'brightness' with the absolute path of the file"

    public init(from decoder: any Decoder) throws {
        let kinds = Kind.allCases.map(\.rawValue)
        try decoder.rejectUnknownKeys(allowed: Set(kinds), in: "'screen'")
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        let given = c.allKeys.compactMap { Kind(rawValue: $0.stringValue) }
        guard given.count == 1, let kind = given.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "'screen' needs \(Self.expected)"))
        }
        let key = AnyCodingKey(stringValue: kind.rawValue)
        let path = try c.decode(key, default: "", expect: "an absolute path") { $0.hasPrefix("/") }
        self.init(kind: kind, path: path)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        try c.encode(path, forKey: AnyCodingKey(stringValue: kind.rawValue))
    }
}

extension SocketConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case path, mode, group
        case maxClients = "max-clients"
        case maxClientsPerUser = "max-clients-per-user"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'socket'")
        path = try c.decode(.path, default: path, expect: "an absolute path") { $0.hasPrefix("/") }
        do {
            _ = try SocketPath(path, for: .listen)
        } catch {
            throw c.corrupted(.path, error.description)
        }
        let octal = try c.decode(.mode, default: "0660", expect: "an octal file mode such as \"0660\"") {
            UInt32($0, radix: 8).map { $0 <= 0o777 } ?? false
        }
        mode = UInt32(octal, radix: 8) ?? mode
        group = try c.decodeIfPresent(String.self, forKey: .group)
        maxClients = try c.decode(.maxClients, default: maxClients, within: 1...1024, expect: "a number from 1 to 1024")
        maxClientsPerUser = try c.decode(
            .maxClientsPerUser, default: maxClientsPerUser, within: 1...1024, expect: "a number from 1 to 1024")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encode("0" + String(mode, radix: 8), forKey: .mode)
        try c.encodeIfPresent(group, for: .group)
        try c.encode(maxClients, forKey: .maxClients)
        try c.encode(maxClientsPerUser, forKey: .maxClientsPerUser)
    }
}

extension WebSocketConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case listen
        case allowedOrigins = "allowed-origins"
        case allowDefine = "allow-define"
        case allowStatus = "allow-status"
        case allowTouches = "allow-touches"
        case pingIntervalMS = "ping-interval-ms"
        case maxClients = "max-clients"
        case maxClientsPerPeer = "max-clients-per-peer"
    }

    public init(from decoder: any Decoder) throws {
        self.init(allowedOrigins: [])
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'websocket'")
        let listen = try c.decode(
            .listen, default: self.listen,
            expect: "an IP address and a port, such as \"127.0.0.1:7330\" or \"[::1]:7330\""
        ) { Self.parseListen($0) != nil }
        (host, port) = Self.parseListen(listen) ?? (host, port)
        guard c.contains(.allowedOrigins) else {
            throw decoder.missing(
                CodingKeys.allowedOrigins,
                "'websocket' needs 'allowed-origins': the origins of the pages that may connect, such as [\"http://localhost:8080\"]"
            )
        }
        allowedOrigins = try c.decode(
            .allowedOrigins, default: [],
            expect:
                "a list of 1 to 64 origins, each scheme://host[:port] with no path, such as \"http://localhost:8080\" or \"file://\""
        ) { origins in (1...64).contains(origins.count) && origins.allSatisfy(Self.isOrigin) }
        allowDefine = try c.decode(.allowDefine, default: allowDefine)
        allowStatus = try c.decode(.allowStatus, default: allowStatus)
        allowTouches = try c.decode(.allowTouches, default: allowTouches)
        pingIntervalMS = try c.decode(
            .pingIntervalMS, default: pingIntervalMS, within: 1000...3_600_000,
            expect: "milliseconds from 1000 to 3600000")
        maxClients = try c.decode(.maxClients, default: maxClients, within: 1...1024, expect: "a number from 1 to 1024")
        maxClientsPerPeer = try c.decode(
            .maxClientsPerPeer, default: maxClientsPerPeer, within: 1...1024, expect: "a number from 1 to 1024")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(listen, forKey: .listen)
        try c.encode(allowedOrigins, forKey: .allowedOrigins)
        try c.encode(allowDefine, forKey: .allowDefine)
        try c.encode(allowStatus, forKey: .allowStatus)
        try c.encode(allowTouches, forKey: .allowTouches)
        try c.encode(pingIntervalMS, forKey: .pingIntervalMS)
        try c.encode(maxClients, forKey: .maxClients)
        try c.encode(maxClientsPerPeer, forKey: .maxClientsPerPeer)
    }

    /// `HOST:PORT` with HOST an IPv4 literal or a bracketed IPv6 one and PORT 0…65535; nil
    /// otherwise. Names are refused: binding must not wait on a resolver at boot.
    static func parseListen(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        let family: Int32
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            family = AF_INET6
        } else {
            family = AF_INET
        }
        var address = in6_addr()
        guard inet_pton(family, host, &address) == 1 else { return nil }
        return (host, port)
    }

    /// A serialized origin as browsers send it: `scheme://host[:port]`, no path (`file://`
    /// has an empty host).
    static func isOrigin(_ text: String) -> Bool {
        guard let separator = text.firstRange(of: "://") else { return false }
        let scheme = text[..<separator.lowerBound]
        let rest = text[separator.upperBound...]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
            && !rest.contains("/") && !rest.contains(where: { $0.isWhitespace })
    }
}

extension DeviceConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case match, enabled, rotation, calibration, passthrough, ignore, screen
        case size = "size-mm"
        case forceTouchscreen = "force-touchscreen"
        case stuckContact = "stuck-contact"
        case idleAfterMS = "idle-after-ms"
        case wakeAfterIdle = "wake-after-idle"
    }

    static let wakeNeedsIdle =
        "'wake-after-idle' needs 'idle-after-ms' (here or at the top level): when the panel is idle"
    /// Dead zones on one panel at most (each is checked at every landing).
    static let mostDeadZones = 16

    /// Whether `zones` together cover the whole surface: every cell of the grid their edges cut
    /// the surface into lies in one of them (at most 33 × 33 cells of 16 zones).
    static func coverWholePanel(_ zones: [SurfaceRect]) -> Bool {
        guard !zones.isEmpty else { return false }
        func cuts(_ edges: [Double]) -> [Double] {
            Array(Set([0, 1] + edges.map { min(max($0, 0), 1) })).sorted()
        }
        let xs = cuts(zones.flatMap { [$0.x, $0.x + $0.width] })
        let ys = cuts(zones.flatMap { [$0.y, $0.y + $0.height] })
        for (left, right) in zip(xs, xs.dropFirst()) {
            for (top, bottom) in zip(ys, ys.dropFirst()) {
                let (x, y) = ((left + right) / 2, (top + bottom) / 2)
                guard zones.contains(where: { x >= $0.x && x < $0.x + $0.width && y >= $0.y && y < $0.y + $0.height })
                else { return false }
            }
        }
        return true
    }

    /// `idle-after-ms` at `key`, checked.
    static func decodeIdleAfter<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> Int? {
        guard c.contains(key) else { return nil }
        return try c.decode(
            key, default: 0, within: 100...604_800_000, expect: "milliseconds from 100 to 604800000 (a week)")
    }

    enum SizeKeys: String, CodingKey, CaseIterable { case width, height }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "a device entry")
        match = try c.decode(.match, default: match)
        enabled = try c.decode(.enabled, default: enabled)
        // Each value is checked by the type the device side uses, with its words.
        let degrees = try c.decode(.rotation, default: 0, expect: Rotation.expected) { Rotation(rawValue: $0) != nil }
        rotation = Rotation(rawValue: degrees)!
        if c.contains(.size) {
            let sizeDecoder = try c.superDecoder(forKey: .size)
            let s = try sizeDecoder.strictContainer(keyedBy: SizeKeys.self, in: "'size-mm'")
            let size = PhysicalSize(
                width: Millimeters(try s.decode(SizeKeys.width, default: 0.0)),
                height: Millimeters(try s.decode(SizeKeys.height, default: 0.0)))
            if let problem = SurfaceSize.implausibility(of: size) {
                throw c.corrupted(.size, "size \(SurfaceSize.format(size)) refused: \(problem)")
            }
            self.size = size
        }
        if let values = try c.decodeIfPresent([Double].self, forKey: .calibration) {
            guard let matrix = CalibrationMatrix(values) else {
                throw c.corrupted(.calibration, "expected \(CalibrationMatrix.expected)")
            }
            calibration = matrix
        }
        passthrough = try c.decode(.passthrough, default: passthrough)
        forceTouchscreen = try c.decode(.forceTouchscreen, default: forceTouchscreen)
        ignore = try c.decode(.ignore, default: [], expect: "a list of at most \(Self.mostDeadZones) rectangles") {
            $0.count <= Self.mostDeadZones
        }
        if Self.coverWholePanel(ignore) {
            throw c.corrupted(
                .ignore,
                "the dead zones cover the whole panel: no contact would reach anything "
                    + "(to leave the panel alone, write 'enabled: false')")
        }
        stuckContact = try c.decodeIfPresent(StuckContactLimit.self, forKey: .stuckContact)
        idleAfterMS = try Self.decodeIdleAfter(c, .idleAfterMS)
        wakeAfterIdle = try c.decodeIfPresent(Bool.self, forKey: .wakeAfterIdle)
        screen = try c.decodeIfPresent(PanelWake.ScreenFile.self, forKey: .screen)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(match, forKey: .match)
        try c.encode(enabled, forKey: .enabled)
        try c.encode(rotation.rawValue, forKey: .rotation)
        if let size {
            var s = c.nestedContainer(keyedBy: SizeKeys.self, forKey: .size)
            try s.encode(size.width.value, forKey: .width)
            try s.encode(size.height.value, forKey: .height)
        }
        try c.encodeIfPresent(calibration?.values, for: .calibration)
        try c.encode(passthrough, forKey: .passthrough)
        try c.encode(forceTouchscreen, forKey: .forceTouchscreen)
        if !ignore.isEmpty { try c.encode(ignore, forKey: .ignore) }
        try c.encodeIfPresent(stuckContact, for: .stuckContact)
        try c.encodeIfPresent(idleAfterMS, for: .idleAfterMS)
        try c.encodeIfPresent(wakeAfterIdle, for: .wakeAfterIdle)
        try c.encodeIfPresent(screen, for: .screen)
    }
}

extension DeviceMatchSpec: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case name, usb, path }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self, in: "'match'")
        name = try c.decodeIfPresent(String.self, forKey: .name)
        if let text = try c.decodeIfPresent(String.self, forKey: .usb) {
            guard let id = USBID(text) else {
                throw c.corrupted(.usb, "expected \(USBID.expected)")
            }
            usb = id
        }
        path = try c.decodeIfPresent(String.self, forKey: .path)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(name, for: .name)
        try c.encodeIfPresent(usb?.description, for: .usb)
        try c.encodeIfPresent(path, for: .path)
    }
}
