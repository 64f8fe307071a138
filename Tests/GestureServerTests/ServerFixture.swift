import Foundation
import GestureEngine
import GestureMetrics
import GestureProtocol
import GestureServer
import Logging
import Synchronization
import TestSupport
import Testing

/// A delegate standing in for the daemon's engine: records what the server tells it, answers
/// `define` as told, and keeps a table of who defined what (what the engine would own).
final class TestDelegate: GestureServerDelegate {
    enum DefineBehaviour: Sendable {
        case accept
        case reject(SpecError)
        /// Keep the request unanswered (to test `busy`); answer later with ``answerHeld(_:)``.
        case hold
    }

    struct Log: Sendable {
        var connected: [ClientID] = []
        var disconnected: [ClientID] = []
        /// Every call in order, to check that a client's define comes before its disconnect.
        var calls: [String] = []
        /// Recognizer names per owner, as the engine would hold them.
        var definitions: [ClientID: [String]] = [:]
    }

    let log = Observed(Log())
    private let behaviour: Mutex<DefineBehaviour>
    private let held = Mutex<[RequestReply]>([])

    init(define: DefineBehaviour = .accept) {
        behaviour = Mutex(define)
    }

    func clientConnected(_ client: ClientID) {
        log.update {
            $0.connected.append(client)
            $0.calls.append("connected \(client)")
        }
    }

    func clientDisconnected(_ client: ClientID) {
        log.update {
            $0.disconnected.append(client)
            $0.calls.append("disconnected \(client)")
            $0.definitions[client] = nil
        }
    }

    /// `define` as told, `status` with the values below, `ping` at once; nothing else.
    func perform(_ job: DaemonJob) {
        let client = job.asker.client
        switch job.request {
        case let request as Define:
            define(request.definitions, client: client, reply: job.reply)
        case is Status:
            log.update { $0.calls.append("status \(client)") }
            job.reply.send(
                StatusMessage(
                    configuration: Self.statusConfiguration, panels: Self.statusPanels, clients: [],
                    metrics: Self.statusMetrics))
        case is Ping:
            job.reply.ok()
        default:
            job.reply.refuse(ErrorMessage(code: .unavailable, message: "the test delegate performs no \(job.request)"))
        }
    }

    private func define(_ definitions: Definitions, client: ClientID, reply: RequestReply) {
        // The behaviour is read, and a held request kept, before the call shows in the log: a
        // test that waits for the call and then changes the behaviour changes the next one's.
        let behaviour = behaviour.withLock { $0 }
        if case .hold = behaviour { held.withLock { $0.append(reply) } }
        log.update { $0.calls.append("define \(client)") }
        switch behaviour {
        case .accept:
            log.update { $0.definitions[client] = definitions.recognizers.map(\.name) }
            reply.ok()
        case .reject(let error):
            reply.refuse(ErrorMessage(definitionError: error, id: nil))
        case .hold:
            break
        }
    }

    /// The daemon's part of every `status`: one panel, the counters of ``statusMetrics``.
    static let statusConfiguration = StatusMessage.Configuration(
        file: "/etc/gestured/gestured.yaml", loaded: 1_795_000_000,
        reloadFailure: StatusMessage.ReloadFailure(
            time: 1_795_000_100, error: "/etc/gestured/gestured.yaml:4:11: unknown kind 'bogus'"))
    static let statusPanels = [
        StatusMessage.Panel(
            label: "event5", name: "ILITEK ILITEK-TP", grabbed: true, mirror: "/dev/input/event9",
            widthMillimeters: 344, heightMillimeters: 194, lastTouch: 1_795_000_200.5)
    ]
    static let statusMetrics = {
        var m = MetricsSnapshot(
            version: "0.0.0-test", startTime: 1_795_000_000, time: 1_795_000_300, configurationLoaded: 1_795_000_000)
        m.counts[.framesRead] = 42
        m.counts[.touchesRead] = 3
        m.gestures = [.init(recognizer: "tap", owner: "configuration", kind: "tap", state: "recognized", count: 2)]
        m.transports = [.init(transport: "unix", connected: 2, accepted: 2)]
        m.panels = [.init(label: "event5", grabbed: true, lastTouch: 1_795_000_200.5)]
        return m
    }()

    /// How the next `define`s are answered.
    func behave(_ next: DefineBehaviour) {
        behaviour.withLock { $0 = next }
    }

    func answerHeld(_ result: Result<Void, SpecError>) {
        for reply in held.withLock({ h in
            defer { h.removeAll() }; return h
        }) {
            switch result {
            case .success: reply.ok()
            case .failure(let error): reply.refuse(ErrorMessage(definitionError: error, id: nil))
            }
        }
    }
}

/// A server on a real socket in a fresh temporary directory (short enough for sun_path).
struct ServerFixture {
    let directory: String
    let path: String
    let server: GestureServer
    let delegate: TestDelegate?
    let log = TrafficLog()

    static func makeDirectory() -> String {
        var template = Array("/tmp/gsrv.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static var logger: Logger {
        var logger = Logger(label: "gestured.test.server")
        logger.logLevel = ProcessInfo.processInfo.environment["GESTURED_TEST_LOG"] == nil ? .critical : .trace
        return logger
    }

    /// Runs `body` against a started server, then shuts it down, removes the directory and
    /// validates every line recorded against the schema.
    static func with<T>(
        limits: ServerLimits = ServerLimits(), delegate: TestDelegate? = TestDelegate(),
        socketMode: UInt32? = 0o660, socketGroup: String? = nil, closeTimeout: Duration = .seconds(5),
        webSocket: WebSocketEndpoint? = nil, positions: PositionAccess = PositionAccess(),
        logger: Logger = ServerFixture.logger, validate: Bool = true, _ body: (ServerFixture) async throws -> T
    ) async throws -> T {
        let directory = makeDirectory()
        let path = directory + "/s.sock"
        let server = GestureServer(
            configuration: .init(
                listener: .path(path), daemonVersion: "0.0.0-test", socketMode: socketMode, socketGroup: socketGroup,
                limits: limits, closeTimeout: .nanoseconds(closeTimeout.timeAmountNanoseconds), webSocket: webSocket,
                positions: positions),
            delegate: delegate, logger: logger)
        let fixture = ServerFixture(directory: directory, path: path, server: server, delegate: delegate)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            try await server.start()
            let result = try await body(fixture)
            await server.shutdown()
            if validate { try fixture.log.validate() }
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// A WebSocket connection upgraded from `origin` (the endpoint must allow it).
    func connectWebSocket(
        origin: String = WebSocketTests.origin, answersPings: Bool = true
    ) async throws -> WebSocketClient {
        try await WebSocketClient.connect(
            port: try #require(server.webSocketPort), origin: origin, log: log, answersPings: answersPings)
    }

    /// Publishes `batch` as the daemon does: each publication's audience decided on the interest
    /// the server posted last, what no connection takes left out (``Interest/decided(_:)``).
    /// `server.publish` of undecided publications leaves the deciding to the server.
    func publish(_ batch: [Publication]) {
        let interest = server.interest(newerThan: 0) ?? Interest()
        server.publish(batch.compactMap { interest.decided($0) })
    }

    func connect(reading: Bool = true) async throws -> LineClient {
        try await LineClient.connect(to: path, log: log, reading: reading)
    }

    /// Connects, reads `hello` and subscribes with `filters` (a JSON fragment of keys).
    func subscriber(_ filters: String = "", reading: Bool = true) async throws -> LineClient {
        let client = try await connect()
        _ = try await client.next(ofType: "hello")
        let extra = filters.isEmpty ? "" : "," + filters
        try await client.send(#"{"type":"subscribe","id":"sub"\#(extra)}"#)
        guard case .ok(.string("sub")?) = try await client.next() else { throw Unexpected("no ok for subscribe") }
        if !reading {
            try await client.channel.setOption(.autoRead, value: false).get()
        }
        return client
    }
}

struct Unexpected: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Messages to publish.
enum Sample {
    static func gesture(
        _ seq: UInt64, name: String = "tap", kind: GestureKind = .tap, state: GestureState = .recognized,
        device: String = "event5", region: String = "root"
    ) -> GestureMessage {
        var report = GestureReport(
            name: name, kind: kind, state: state, region: region, fingers: 1,
            touches: TouchIDList([TouchID(UInt32(seq % 1000))]),
            time: Timestamp(microseconds: 1_000_000 + Int64(seq) * 8000),
            position: SurfacePoint(x: 0.25, y: 0.75))
        report.positionMM = PhysicalPoint(x: Millimeters(86), y: Millimeters(145.5))
        report.translationMM = PhysicalVector(dx: Millimeters(0), dy: Millimeters(0))
        report.velocityMM = PhysicalVector(dx: Millimeters(0), dy: Millimeters(0))
        report.scale = kind == .pinch ? 1.5 : nil
        report.rotation = kind == .rotate ? 0.3 : nil
        report.direction = kind == .swipe ? .upLeft : nil
        report.edge = kind == .edgeSwipe ? .bottom : nil
        report.shape = kind == .shape ? "circle" : nil
        report.score = kind == .shape ? 0.93 : nil
        return GestureMessage(seq: seq, device: device, report: report)
    }

    static func touch(
        _ seq: UInt64, id: UInt32 = 1, phase: TouchPhase = .moved, region: String = "root"
    )
        -> TouchMessage
    {
        TouchMessage(
            seq: seq, device: "event5", region: region, time: Timestamp(microseconds: 2_000_000 + Int64(seq)),
            touch: Touch(
                id: TouchID(id), phase: phase, position: SurfacePoint(x: 0.5, y: 0.5), tool: .finger,
                contactSize: Millimeters(7.5), pressure: 0.4))
    }

    static let device = DeviceInfo(
        label: "event5", name: "ELAN Touchscreen", vendor: 0x04f3, product: 0x2234,
        sizeMM: SizeMM(width: 344, height: 194), slots: 10)
}

extension Duration {
    var timeAmountNanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
