import GestureEngine
import GestureProtocol
import GestureServer
import Glibc
import Logging

/// `record` and the end of recordings: which panel, who may, and the panels' capture.
extension InputLoop {
    /// A `record`: the panel it names, whether its client may see that panel's every event
    /// (``PositionAccess``), and the recording started — or refused, with the reason logged.
    func record(_ options: RecordOptions, for asker: Asker, reply: RequestReply) {
        func refuse(_ code: ErrorCode, _ message: String) {
            path.recordingLog.log(
                .warning, "recording refused", cause: "recording-refused", peer: asker.peer.map { "uid \($0.uid)" },
                metadata: [
                    "client": "\(asker.client)", "uid": "\(asker.peer.map { "\($0.uid)" } ?? "?")",
                    "device": "\(options.device ?? "-")", "reason": "\(message)",
                ], to: logger)
            reply.refuse(ErrorMessage(code: code, message: message))
        }
        if let current = path.recordings.recording(of: asker.client) {
            return refuse(.busy, "this connection records \(current.label) already; send stop-recording first")
        }
        let panels = source.recordable
        let panel: RecordablePanel
        switch Self.choose(options.device, among: panels) {
        case .success(let chosen): panel = chosen
        case .failure(let problem): return refuse(.noSuchDevice, problem.message)
        }
        switch configuration.positionAccess(daemonUser: geteuid()).decide(
            .local(asker.peer), sees: .panel(panel.permissions))
        {
        case .refused(let code, let reason):
            refuse(code, reason)
        case .allowed(let reason):
            let deadline = options.durationMS.map { requestTime + Int64($0) * 1000 }
            path.startRecording(options, for: asker, id: reply.id, panel: panel, deadline: deadline, allowedAs: reason)
            source.capture(panel.descriptor.id, true)
            reply.published()
        }
    }

    /// The panel `selector` names (its label or its node), or the only one when it names none.
    static func choose(_ selector: String?, among panels: [RecordablePanel]) -> Result<RecordablePanel, DaemonError> {
        let names = panels.map(\.descriptor.label).joined(separator: ", ")
        guard let selector else {
            if panels.count == 1 { return .success(panels[0]) }
            return .failure(
                DaemonError(
                    panels.isEmpty
                        ? "the daemon has no panel open to record"
                        : "the daemon has \(panels.count) panels (\(names)): name one with 'device'"))
        }
        if let panel = panels.first(where: { $0.descriptor.label == selector || $0.node == selector }) {
            return .success(panel)
        }
        return .failure(
            DaemonError(
                "no panel '\(selector)' is open"
                    + (panels.isEmpty ? "; the daemon has none" : " (the daemon has: \(names))")))
    }

    /// The panels whose recordings ended stop keeping their events, unless another connection
    /// still records them.
    func stopCapturing(_ devices: [DeviceID]) {
        for device in devices where !path.recordings.records(device) { source.capture(device, false) }
    }
}
