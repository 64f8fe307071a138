import GestureEngine
import GestureProtocol
import GestureServer
import Logging
import TouchInput

/// The recordings under way (`gestured record`, docs/RECORDING.md): which connection records
/// which panel, since when, until when, and how many events it has been sent. Owned by the
/// ``FramePath`` on the input thread, which hands it each read's events of a panel being
/// recorded; it turns them into `raw` publications for the connections recording that panel.
/// Nothing here runs for a panel nobody records: the panel does not even keep its events
/// (``TouchDevice/capture(_:)``).
struct PanelRecordings {
    struct Recording {
        let client: ClientID
        let device: DeviceID
        let label: String
        let peer: PeerCredentials?
        /// Monotonic µs at which its `duration_ms` runs out; nil: none.
        let deadline: Int64?
        var events = 0
    }

    private(set) var active: [Recording] = []

    /// Whether some connection records `device`.
    func records(_ device: DeviceID) -> Bool { active.contains { $0.device == device } }

    /// The recording of `client`, if it has one.
    func recording(of client: ClientID) -> Recording? { active.first { $0.client == client } }

    /// The earliest duration to run out (monotonic µs); nil when none is set. Asked on every
    /// turn of the input loop: nothing but an emptiness test while nobody records.
    var nextDeadline: Int64? {
        guard !active.isEmpty else { return nil }
        return active.compactMap(\.deadline).min()
    }

    mutating func start(_ recording: Recording) { active.append(recording) }

    /// The `raw` publications of `events`, read from `device`, one for each connection that
    /// records it, counted.
    mutating func publications(of events: [InputEvent], device: DeviceID, into batch: (Publication) -> Void) {
        for i in active.indices where active[i].device == device {
            active[i].events += events.count
            batch(.raw(RawMessage(device: active[i].label, events: events), client: active[i].client))
        }
    }

    /// Takes out the recordings `which` selects, in the order they started.
    mutating func remove(where which: (Recording) -> Bool) -> [Recording] {
        let ended = active.filter(which)
        active.removeAll(where: which)
        return ended
    }
}

extension FramePath {
    /// Starts `client`'s recording of `panel` (its permission already decided): its `started`
    /// message goes into the batch, and from now on each read of the panel becomes a `raw`
    /// message to it.
    func startRecording(
        _ options: RecordOptions, for asker: Asker, id: RequestID?, panel: RecordablePanel, deadline: Int64?,
        allowedAs reason: String
    ) {
        recordings.start(
            PanelRecordings.Recording(
                client: asker.client, device: panel.descriptor.id, label: panel.descriptor.label, peer: asker.peer,
                deadline: deadline))
        publish(
            .recording(
                .started(device: panel.descriptor.label, description: panel.description, id: id), client: asker.client))
        recordingLog.log(
            .notice, "recording started", cause: "recording-started", peer: asker.peer.map { "uid \($0.uid)" },
            metadata: [
                "client": "\(asker.client)", "uid": "\(asker.peer.map { "\($0.uid)" } ?? "?")",
                "device": "\(panel.descriptor.label)", "node": "\(panel.node ?? "-")", "allowed": "\(reason)",
                "duration-ms": "\(options.durationMS.map(String.init) ?? "until stopped")",
            ], to: logger)
    }

    /// A read of `device` brought `events`: they go to the connections recording it.
    func recorded(_ events: [InputEvent], device: DeviceID) {
        guard !events.isEmpty else { return }
        recordings.publications(of: events, device: device) { publish($0) }
    }

    /// Ends the recordings `which` selects: each one's connection gets `recording` `stopped`
    /// (answering `id` when a `stop-recording` ended it) unless it has gone (`reason` nil), and
    /// the journal says who recorded what. Returns the devices they recorded.
    @discardableResult
    func stopRecordings(
        where which: (PanelRecordings.Recording) -> Bool, reason: RecordingMessage.StopReason?, id: RequestID? = nil
    ) -> [DeviceID] {
        let ended = recordings.remove(where: which)
        for recording in ended {
            if let reason {
                publish(
                    .recording(
                        .stopped(device: recording.label, events: recording.events, reason: reason, id: id),
                        client: recording.client))
            }
            recordingLog.log(
                .notice, "recording stopped", cause: "recording-stopped", peer: recording.peer.map { "uid \($0.uid)" },
                metadata: [
                    "client": "\(recording.client)", "uid": "\(recording.peer.map { "\($0.uid)" } ?? "?")",
                    "device": "\(recording.label)", "events": "\(recording.events)",
                    "reason": "\(reason?.rawValue ?? "client-gone")",
                ], to: logger)
        }
        return ended.map(\.device)
    }
}

/// A panel `gestured record` may record: its description (an evemu file's header), and the
/// node whose owner and mode say who may read it — the event node of a live panel, the
/// recording a replayed one plays.
struct RecordablePanel {
    let descriptor: DeviceDescriptor
    let description: DeviceCapabilities
    /// The node's path, for the journal.
    let node: String?
    /// Its owner and mode now; nil when it cannot be looked at.
    let permissions: PositionAccess.Node?
}
