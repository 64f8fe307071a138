import Foundation
import GestureClient
import GestureProtocol
import TestSupport
import Testing

/// What the Swift client takes for a message type of its protocol version: the protocol's own
/// list (``ServerMessage/types``), which the schema checks. Its copy of that list lacked `dropped`,
/// so a broken `dropped` line was skipped as a newer server's type instead of failing.
@Suite(.timeLimit(.minutes(10))) struct ClientTypesTests {
    @Test func `the protocol's message types are the schema's server messages`() throws {
        let schema = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: SchemaValidator.schemaPath))) as? [String: Any]
        let definitions = try #require(schema?["$defs"] as? [String: Any])
        let server = try #require((definitions["serverMessage"] as? [String: Any])?["oneOf"] as? [[String: Any]])
        let types = try server.map { reference -> String in
            let name = try #require((reference["$ref"] as? String)?.split(separator: "/").last)
            let message = try #require(definitions[String(name)] as? [String: Any])
            let type = (message["properties"] as? [String: Any])?["type"] as? [String: Any]
            return try #require(type?["const"] as? String, "\(name) has no const type")
        }
        // The replies of request types the daemon declares in files of their own, which the Swift
        // client does not ask for (DaemonProcessTests holds them to the schema).
        let declaredReplies: Set = ["panels"]
        #expect(Set(types) == ServerMessage.types.union(declaredReplies))
        #expect(types.count == ServerMessage.types.count + declaredReplies.count)
    }

    /// A fake server: `hello`; then, once the client has pinged (so it is past its checks of the
    /// server), the `pong`, `lines` and the end of its output; then it waits for the client to go.
    /// It waits as long as the suite may take: the client runs in this process, and on a loaded
    /// host its ping came more than two minutes after the hello.
    static func server(at path: String, sending lines: [String]) throws -> ChildProcess {
        try ChildProcess([
            "python3", "-c",
            """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
            print("listening", flush=True)
            c, _ = s.accept()
            c.settimeout(600)
            f = c.makefile("rwb", buffering=0)
            f.write(sys.argv[2].encode() + b"\\n")
            ping = json.loads(f.readline())
            pong = json.dumps({"type": "pong", "id": ping["id"]})
            f.write("".join(line + "\\n" for line in [pong] + sys.argv[3:]).encode())
            c.shutdown(socket.SHUT_WR)
            while c.recv(4096):
                pass
            """,
            path, Self.hello,
        ] + lines)
    }

    static let hello =
        #"{"client":7,"daemon":"0.1.0","devices":[],"limits":{"max_client_definitions":256,"max_client_templates":128,"max_clients":128,"max_clients_per_peer":64,"max_definitions":64,"max_line_bytes":65536,"max_queued_messages":1024,"max_templates":16},"protocol":1,"recognizers":[],"type":"hello"}"#
    static let device =
        #"{"device":{"label":"event5","name":"ELAN Touchscreen","product":8756,"size_mm":{"height":193.5,"width":344},"slots":10,"vendor":1267},"event":"added","type":"device"}"#

    @Test(arguments: ServerMessage.types.sorted())
    func `a line of a known type that does not decode fails the connection; one of a newer type is skipped`(
        type: String
    ) async throws {
        let directory = ServerFixture.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/g.sock"
        // `id` of the wrong kind breaks even `ok` and `pong`, whose other keys are all optional.
        let server = try Self.server(
            at: path,
            sending: [#"{"type":"from-a-newer-server","id":1}"#, Self.device, #"{"type":"\#(type)","id":[]}"#])
        defer { server.terminate() }
        try await server.waitForLines(1)
        let outcome: (messages: [String], error: (any Error)?) = try await GestureClient.connect(to: path) { client in
            try await client.ping()
            var messages: [String] = []
            do {
                for try await message in client.messages { messages.append(message.type) }
            } catch {
                return (messages, error)
            }
            return (messages, nil)
        }
        #expect(outcome.messages == ["device"], "the newer type skipped, the device read")
        guard case .protocolViolation? = outcome.error as? GestureClientError else {
            Issue.record("\(type): \(String(describing: outcome.error))")
            return
        }
    }
}
