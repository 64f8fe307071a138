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

            // A page may ask as well.
            try await page.send(#"{"type":"status","id":2}"#)
            guard case .status(let fromPage) = try await page.next() else { throw Unexpected("no status on the page") }
            #expect(fromPage.id == .number(2))
            #expect(fromPage.clients.count == 3)
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
