import Foundation
import GestureProtocol
import TestSupport
import Testing

@testable import GestureDaemon
@testable import GestureServer

/// The request types the daemon declares in files of their own (``DaemonRequests``), read as the
/// server reads them: beside the server's own, each decoded strictly by its own declaration.
/// Every test goes over the whole list, so a new type is held to them by its registration line.
@Suite struct DaemonRequestTests {
    let table = RequestTable(declared: DaemonRequests.all)

    func parse(_ line: String) -> Result<(any RequestType, RequestID?), ErrorMessage> {
        table.parse(Array(line.utf8))
    }

    @Test func `a declared type takes no key it does not declare`() {
        for type in DaemonRequests.all where !type.keys.contains("device") {
            guard case .failure(let error) = parse(#"{"type":"\#(type.name)","device":"event5"}"#) else {
                Issue.record("a \(type.name) with a key was accepted")
                continue
            }
            #expect(error.code == .invalidMessage && error.path == "/device", "\(type.name): \(error)")
        }
    }

    @Test func `a declared type decodes to itself, and its bare line is the same request`() {
        for type in DaemonRequests.all {
            guard case .success(let (request, id)) = parse(#"{"type":"\#(type.name)","id":7}"#) else {
                Issue.record("\(type.name) is not decoded as a declared type")
                continue
            }
            #expect(ObjectIdentifier(Swift.type(of: request)) == ObjectIdentifier(type), "\(type.name)")
            #expect(id == .number(7), "\(type.name)")
            let head = RequestHead(type: type.name, id: .number(7), isWhole: true)
            if let bare = table.bare(head) {
                #expect(ObjectIdentifier(Swift.type(of: bare)) == ObjectIdentifier(type), "\(type.name)")
            } else {
                #expect(type.bare == nil, "\(type.name) has a bare form the table does not")
            }
        }
    }

    @Test func `an unknown type's error lists the daemon's types with the others`() {
        guard case .failure(let error) = parse(#"{"type":"dance"}"#) else {
            Issue.record("dance was accepted")
            return
        }
        let listed = ServerRequests.all.map { $0.name } + DaemonRequests.all.map { $0.name }
        #expect(error.code == .unknownType)
        #expect(error.message.hasSuffix("(expected one of: \(listed.sorted().joined(separator: ", ")))"), "\(error)")
    }

    @Test func `the schema admits every declared type's bare request`() throws {
        let traffic = TrafficLog()
        for type in DaemonRequests.all where type.bare != nil { traffic.sent(#"{"type":"\#(type.name)","id":1}"#) }
        try traffic.validate()
    }
}
