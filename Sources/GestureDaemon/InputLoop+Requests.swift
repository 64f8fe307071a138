import GestureProtocol

/// The requests the input thread takes from its queue (``RequestQueue``): who connected and
/// went, the requests the server hands over (``DaemonRequests``), what the compiler made, a
/// scrape's counters.
extension InputLoop {
    /// Handles the queued requests in order. Definition changes (a `define`, the definitions of a
    /// connection that closed; a reload) go to the compiler's thread, one at a time in the order they came;
    /// what it makes is installed here when it comes back (no compiling on the
    /// frame path).
    func takeRequests(wallNow: Int64) {
        defer { path.publishRecognizers() }
        requestTime = wallNow
        for item in requests.drain() {
            lag = max(lag, wallNow - item.queuedAt)
            switch item.request {
            case .connected:
                path.connectedClients += 1
            case .disconnected(let client):
                path.connectedClients -= 1
                definitionQueue.append(.remove(client), from: client)
                stopCapturing(path.stopRecordings(where: { $0.client == client }, reason: nil))
            case .perform(let job):
                DaemonRequests.perform(job, on: self)
            case .compiled(let compiled):
                install(compiled, wallNow: wallNow)
            case .snapshot(let complete):
                complete(
                    metrics.snapshot(path: path, loop: counters, server: server.statistics(), panels: source.panels))
            }
        }
        compileNext()
    }

    /// The daemon's part of `status`: its configuration, panels and counters (the server adds
    /// the clients).
    func status() -> StatusMessage {
        metrics.status(
            path: path, loop: counters, server: server.statistics(), panels: source.panels,
            configurationFile: configPath, dropIns: dropIns)
    }
}
