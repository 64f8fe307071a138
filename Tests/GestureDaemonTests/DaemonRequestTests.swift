import GestureProtocol
import Testing

@testable import GestureDaemon
@testable import GestureServer

/// The request types the daemon declares in files of their own (``DaemonRequests``), read as the
/// server reads them: beside ``ClientMessage``'s, each decoded strictly by its own declaration.
@Suite struct DaemonRequestTests {
    let table = RequestTable(declared: DaemonRequests.all)

    func parse(_ line: String) -> Result<(body: ServedRequest, id: RequestID?), ErrorMessage> {
        ClientMessage.parse(Array(line.utf8), types: table.types)
    }

    @Test func `a declared type takes no key it does not declare`() {
        guard case .failure(let error) = parse(#"{"type":"stop-recording","device":"event5"}"#) else {
            Issue.record("a stop-recording with a key was accepted")
            return
        }
        #expect(error.code == .invalidMessage && error.path == "/device", "\(error)")
    }

    @Test func `a declared type decodes to itself, and its bare line is the same request`() throws {
        let (body, id) = try parse(#"{"type":"stop-recording","id":7}"#).get()
        guard case .declared(let request) = body else {
            Issue.record("not a declared type: \(body)")
            return
        }
        #expect(request is StopRecording && id == .number(7))
        let head = RequestHead(type: "stop-recording", id: .number(7), isWhole: true)
        guard case .declared(let bare)? = RequestDecoding.bare(head, among: table.types) else {
            Issue.record("stop-recording has no bare form")
            return
        }
        #expect(bare is StopRecording)
    }

    @Test func `an unknown type's error lists the daemon's types with the others`() {
        guard case .failure(let error) = parse(#"{"type":"dance"}"#) else {
            Issue.record("dance was accepted")
            return
        }
        let listed = ClientMessage.requestTypes.map(\.name) + DaemonRequests.all.map { $0.name }
        #expect(error.code == .unknownType)
        #expect(error.message.hasSuffix("(expected one of: \(listed.sorted().joined(separator: ", ")))"), "\(error)")
    }
}
