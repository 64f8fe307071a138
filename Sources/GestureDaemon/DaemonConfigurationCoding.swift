import GestureEngine
import TouchInput

// Strict Codable for the configuration file: unknown keys are errors, every value is checked
// where it is read, so the loader can point at the offending line and column.

extension DaemonConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case socket, devices, regions, recognizers, clients
        case logLevel = "log-level"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "the configuration")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        socket = try c.decode(.socket, default: SocketConfiguration())
        devices = try c.decode(.devices, default: [])
        regions = try c.decode(.regions, default: [])
        // Absent means the built-in set; `recognizers:` with nothing after it (everything below
        // commented out, say) is neither that nor an empty list: ask which was meant.
        if c.contains(.recognizers), try c.decodeNil(forKey: .recognizers) {
            throw DecodingError.dataCorruptedError(
                forKey: .recognizers, in: c,
                debugDescription: "'recognizers' has no value: list recognizers, write 'recognizers: []' for none, "
                    + "or remove the key to run the built-in set")
        }
        recognizers = try c.decodeIfPresent([RecognizerSpec].self, forKey: .recognizers)
        clients = try c.decode(.clients, default: ClientPolicy())
        logLevel = try c.decode(.logLevel, default: .info)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(logLevel, forKey: .logLevel)
        try c.encode(socket, forKey: .socket)
        try c.encode(devices, forKey: .devices)
        try c.encode(regions, forKey: .regions)
        try c.encodeIfPresent(recognizers, for: .recognizers)
        try c.encode(clients, forKey: .clients)
    }
}

extension SocketConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case path, mode, group
        case maxClients = "max-clients"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "'socket'")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        path = try c.decode(.path, default: path, expect: "an absolute path of at most 107 bytes") {
            $0.hasPrefix("/") && $0.utf8.count <= 107
        }
        let octal = try c.decode(.mode, default: "0660", expect: "an octal file mode such as \"0660\"") {
            UInt32($0, radix: 8).map { $0 <= 0o777 } ?? false
        }
        mode = UInt32(octal, radix: 8) ?? mode
        group = try c.decodeIfPresent(String.self, forKey: .group)
        maxClients = try c.decode(.maxClients, default: maxClients, expect: "a number from 1 to 1024") {
            (1...1024).contains($0)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encode("0" + String(mode, radix: 8), forKey: .mode)
        try c.encodeIfPresent(group, for: .group)
        try c.encode(maxClients, forKey: .maxClients)
    }
}

extension DeviceConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case match, enabled, rotation, calibration, passthrough
        case size = "size-mm"
        case forceTouchscreen = "force-touchscreen"
    }

    enum SizeKeys: String, CodingKey, CaseIterable { case width, height }

    public init(from decoder: any Decoder) throws {
        self.init()
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "a device entry")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        match = try c.decode(.match, default: match)
        enabled = try c.decode(.enabled, default: enabled)
        rotation = try c.decode(.rotation, default: 0, expect: "0, 90, 180 or 270") { [0, 90, 180, 270].contains($0) }
        if c.contains(.size) {
            let sizeDecoder = try c.superDecoder(forKey: .size)
            try sizeDecoder.rejectUnknownKeys(allowed: Set(SizeKeys.allCases.map(\.rawValue)), in: "'size-mm'")
            let s = try sizeDecoder.container(keyedBy: SizeKeys.self)
            let mm = "millimetres above 0 and at most 5000"
            let width = try s.decode(SizeKeys.width, default: 0.0, expect: mm) { $0 > 0 && $0 <= 5000 }
            let height = try s.decode(SizeKeys.height, default: 0.0, expect: mm) { $0 > 0 && $0 <= 5000 }
            size = PhysicalSize(width: Millimeters(width), height: Millimeters(height))
        }
        calibration = try c.decodeIfPresent([Double].self, forKey: .calibration)
        if let matrix = calibration, matrix.count != 6 || !matrix.allSatisfy(\.isFinite) {
            throw DecodingError.dataCorruptedError(
                forKey: .calibration, in: c, debugDescription: "expected 6 numbers (a 2×3 matrix, row by row)")
        }
        passthrough = try c.decode(.passthrough, default: passthrough)
        forceTouchscreen = try c.decode(.forceTouchscreen, default: forceTouchscreen)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(match, forKey: .match)
        try c.encode(enabled, forKey: .enabled)
        try c.encode(rotation, forKey: .rotation)
        if let size {
            var s = c.nestedContainer(keyedBy: SizeKeys.self, forKey: .size)
            try s.encode(size.width.value, forKey: .width)
            try s.encode(size.height.value, forKey: .height)
        }
        try c.encodeIfPresent(calibration, for: .calibration)
        try c.encode(passthrough, forKey: .passthrough)
        try c.encode(forceTouchscreen, forKey: .forceTouchscreen)
    }
}

extension DeviceMatchSpec: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case name, usb, path }

    public init(from decoder: any Decoder) throws {
        self.init()
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "'match'")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        usb = try c.decodeIfPresent(String.self, forKey: .usb)
        if let usb, DeviceMatch.parseVendorProduct(usb) == nil {
            throw DecodingError.dataCorruptedError(
                forKey: .usb, in: c, debugDescription: "expected vendor:product in hex, e.g. \"0eef:72a1\"")
        }
        path = try c.decodeIfPresent(String.self, forKey: .path)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(name, for: .name)
        try c.encodeIfPresent(usb, for: .usb)
        try c.encodeIfPresent(path, for: .path)
    }
}
