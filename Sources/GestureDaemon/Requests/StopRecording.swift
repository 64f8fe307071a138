import GestureEngine
import GestureProtocol
import GestureServer

/// `stop-recording` (docs/PROTOCOL.md): ends this connection's recording. The daemon publishes
/// the `recording` `stopped` message with the request's `id`; `ok` when nothing was recorded.
struct StopRecording: InputThreadRequest {
    static let name = "stop-recording"
    static let bare: StopRecording? = StopRecording()

    init() {}
    init(from object: KeyedDecodingContainer<AnyCodingKey>, id: RequestID?) throws(ErrorMessage) {}

    func perform(on loop: InputLoop, for asker: Asker, reply: RequestReply) {
        let ended = loop.path.stopRecordings(where: { $0.client == asker.client }, reason: .requested, id: reply.id)
        if ended.isEmpty { reply.ok() } else { reply.published() }
        loop.stopCapturing(ended)
    }
}
