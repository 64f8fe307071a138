import GestureEngine
import GestureProtocol
import GestureServer

/// `stop-recording` (docs/PROTOCOL.md): ends this connection's recording. The daemon publishes
/// the `recording` `stopped` message with the request's `id`; `ok` when nothing was recorded.
struct StopRecording: InputThreadRequest, KeylessRequest {
    static let name = "stop-recording"

    func perform(on loop: InputLoop, for asker: Asker, reply: RequestReply) {
        let ended = loop.path.stopRecordings(where: { $0.client == asker.client }, reason: .requested, id: reply.id)
        if ended.isEmpty { reply.ok() } else { reply.published() }
        loop.stopCapturing(ended)
    }
}
