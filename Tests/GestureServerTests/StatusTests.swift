import Foundation
import GestureClient
import GestureMetrics
import GestureProtocol
import Glibc
import TestSupport
import Testing

@testable import GestureServer

/// The `status` request: the daemon's part from the delegate, the clients from the server, made
/// and encoded off the server thread; every line checked against the schema by the fixture.
@Suite struct StatusTests {
    /// The user database's name of the test's own user, read by Foundation (not by the server's
    /// lookup).
    static var userName: String { ProcessInfo.processInfo.userName }

    @Test func `status carries the daemon's part and every client by transport and user`() async throws {
        try await WebSocketTests.with { f in
            let asking = try await f.connect()
            guard case .hello(let first) = try await asking.next(ofType: "hello") else { throw Unexpected("no hello") }
            let other = try await f.connect()
            guard case .hello(let second) = try await other.next(ofType: "hello") else { throw Unexpected("no hello") }
            let page = try await f.connectWebSocket()
            guard case .hello(let third) = try await page.next(ofType: "hello") else { throw Unexpected("no hello") }

            try await asking.send(#"{"type":"status","id":"s1"}"#)
            guard case .status(let status) = try await asking.next() else { throw Unexpected("no status") }
            #expect(status.id == .string("s1"))
            #expect(status.configuration == TestDelegate.statusConfiguration)
            #expect(status.panels == TestDelegate.statusPanels)
            #expect(status.metrics == TestDelegate.statusMetrics)
            #expect(status.version == "0.0.0-test")
            #expect(status.uptime == 300)
            let uid = UInt32(getuid())
            #expect(
                status.clients == [
                    StatusMessage.Client(client: first.client, transport: .unix, uid: uid, user: Self.userName),
                    StatusMessage.Client(client: second.client, transport: .unix, uid: uid, user: Self.userName),
                    StatusMessage.Client(client: third.client, transport: .websocket, origin: WebSocketTests.origin),
                ])

            // A page is refused it: the endpoint does not allow it.
            try await page.send(#"{"type":"status","id":2}"#)
            guard case .error(let refused) = try await page.next() else { throw Unexpected("a page got a status") }
            #expect(refused.code == .unavailable && refused.id == .number(2))
            #expect(refused.message.contains("websocket.allow-status"))
        }
    }

    /// `version`, `start_time` and `uptime_s` are the metrics' own, said again at the top of the
    /// line for scripts (`jq .version`): written beside the message's other keys, as the wire has
    /// them.
    @Test func `a status line carries the version, start time and uptime at its top`() throws {
        let status = StatusMessage(
            id: .number(7), configuration: TestDelegate.statusConfiguration, panels: TestDelegate.statusPanels,
            clients: [], metrics: TestDelegate.statusMetrics)
        var encoder = LineEncoder()
        let line = try encoder.encode(.status(status))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(object["type"] as? String == "status")
        #expect((object["id"] as? NSNumber)?.intValue == 7)
        #expect(object["version"] as? String == TestDelegate.statusMetrics.version)
        #expect((object["start_time"] as? NSNumber)?.doubleValue == TestDelegate.statusMetrics.startTime)
        #expect((object["uptime_s"] as? NSNumber)?.doubleValue == status.uptime)
        #expect(
            Set(object.keys) == [
                "type", "id", "version", "start_time", "uptime_s", "configuration", "panels", "clients", "metrics",
            ])
    }

    /// `status` names the local users of the Unix socket's clients, and any local program can
    /// reach the WebSocket endpoint claiming an allowed origin: a page is answered only where the
    /// endpoint allows it, and refused on the request's head otherwise.
    @Test(arguments: [false, true])
    func `a page is answered status only where the endpoint allows it`(allowed: Bool) async throws {
        try await WebSocketTests.with(endpoint: WebSocketTests.endpoint(allowsStatus: allowed)) { f in
            let page = try await f.connectWebSocket()
            _ = try await page.next(ofType: "hello")
            try await page.send(#"{"type":"status","id":2}"#)
            switch try await page.next() {
            case .status(let status):
                #expect(allowed)
                #expect(status.id == .number(2) && status.clients.count == 1)
            case .error(let error):
                #expect(!allowed)
                #expect(error.code == .unavailable && error.id == .number(2))
            default: Issue.record("neither a status nor an error")
            }
        }
    }

    @Test func `a client gone when the status arrives is not listed in the next`() async throws {
        try await ServerFixture.with { f in
            let asking = try await f.connect()
            _ = try await asking.next(ofType: "hello")
            let leaving = try await f.connect()
            guard case .hello(let gone) = try await leaving.next(ofType: "hello") else { throw Unexpected("no hello") }
            await leaving.close()
            try await f.delegate!.log.wait(for: "the disconnect") { $0.disconnected.count == 1 }
            try await asking.send(#"{"type":"status"}"#)
            guard case .status(let status) = try await asking.next() else { throw Unexpected("no status") }
            #expect(status.id == nil)
            #expect(!status.clients.contains { $0.client == gone.client })
            #expect(status.clients.count == 1)
        }
    }

    @Test func `a server with nothing behind it answers status with unavailable`() async throws {
        try await ServerFixture.with(delegate: nil) { f in
            let client = try await f.connect()
            _ = try await client.next(ofType: "hello")
            try await client.send(#"{"type":"status","id":3}"#)
            guard case .error(let error) = try await client.next() else { throw Unexpected("no error") }
            #expect(error.code == .unavailable)
            #expect(error.id == .number(3))
            try await client.roundTrip()
        }
    }

    @Test func `a status with other keys is refused as a request with an unknown key`() async throws {
        try await ServerFixture.with { f in
            let client = try await f.connect()
            _ = try await client.next(ofType: "hello")
            let line = #"{"type":"status","id":4,"verbose":true}"#
            f.log.mustBeInvalid(line)
            try await client.sendRaw(Array((line + "\n").utf8))
            guard case .error(let error) = try await client.next() else { throw Unexpected("no error") }
            #expect(error.code == .invalidMessage)
            #expect(error.id == .number(4))
        }
    }

    @Test func `the Swift client's status() returns the message`() async throws {
        try await ServerFixture.with { f in
            let status = try await GestureClient.connect(to: f.path) { client in try await client.status() }
            #expect(status.metrics == TestDelegate.statusMetrics)
            #expect(status.clients.count == 1)
        }
    }
}
