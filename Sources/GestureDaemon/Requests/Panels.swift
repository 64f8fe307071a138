import GestureEngine
import GestureProtocol
import GestureServer

/// `panels` (docs/PROTOCOL.md): the panels open now, as `status` lists them — each one's label
/// and name, its size in millimetres after its rotation, the rotation, whether it is grabbed,
/// idle, and its screen's state — without the counters and the clients: what a page needs to
/// lay out its regions. It names no user, so pages may ask.
struct Panels: InputThreadRequest, KeylessRequest {
    static let name = "panels"

    func perform(on loop: InputLoop, for asker: Asker, reply: RequestReply) {
        let panels = MetricsSnapshotBuilder.describe(loop.source.panels, path: loop.path, clock: .init())
        reply.send(Reply(id: reply.id, panels: panels))
    }

    /// `{"type":"panels","id":…,"panels":[…]}`.
    struct Reply: Encodable, Sendable {
        let type = Panels.name
        let id: RequestID?
        let panels: [StatusMessage.Panel]
    }
}
