import CLinuxSupport
import GestureEngine
import GestureProtocol
import GestureServer
import Logging

/// The definition changes (``DefinitionQueue``): each to the compiler's thread in turn, what it
/// makes installed between two frames, the `define`s and the `ping`s behind them answered.
extension InputLoop {
    /// The first waiting change is done (installed, refused, or nothing to do): the `ping`s
    /// that waited for it (their connection's `define`) get their `pong`.
    private func changeDone() {
        var actions: [DefinitionQueue<DefinitionChange, RequestReply, ClientID>.Action] = []
        definitionQueue.finishFirst(into: &actions)
        perform(actions)
    }

    /// Hands the first waiting definition change to the compiler, made from the running set,
    /// unless one is being compiled. A connection that closed without definitions changes
    /// nothing and needs no compiling.
    func compileNext() {
        var actions: [DefinitionQueue<DefinitionChange, RequestReply, ClientID>.Action] = []
        definitionQueue.next(
            skipping: { change in
                guard case .remove(let client) = change else { return false }
                return !path.definitions.defines(client.owner)
            }, into: &actions)
        perform(actions)
    }

    private func perform(_ actions: [DefinitionQueue<DefinitionChange, RequestReply, ClientID>.Action]) {
        for action in actions {
            switch action {
            case .compile(let change): compiler.compile(change, from: path.definitions)
            case .reply(let ping): ping.ok()
            }
        }
    }

    /// Installs what the compiler made (between two frames: it only carries the devices' state
    /// over) and answers the `define`. A set made from one that is no longer running cannot
    /// come (one change at a time, all through here); were it to, it is made again from the
    /// running one.
    func install(_ compiled: CompiledChange, wallNow: Int64) {
        definitionQueue.compilerReturned()
        guard compiled.basis == path.definitions.generation else { return }
        defer { changeDone() }
        switch compiled.outcome {
        case .refused(let error):
            if case .define(_, _, let reply) = compiled.change {
                counters.counts[.definitionsRefused] += 1
                reply.refuse(ErrorMessage(definitionError: error, id: nil))
            }
        case .changed(let next):
            if let next { path.install(next, at: engineNow(wallNow: wallNow)) }
            switch compiled.change {
            case .define(_, _, let reply):
                counters.counts[.definitionsAccepted] += 1
                reply.ok()
            case .remove, .reload:
                // What the client's definitions held (shape templates above all) goes back to
                // the system, not only to malloc's free lists.
                if next != nil { _ = gestured_release_free_memory() }
            }
        case .reloaded(let fresh, let next, let dropped):
            if let next { path.install(next, at: engineNow(wallNow: wallNow)) }
            reloaded(fresh, dropped: dropped, wallNow: wallNow)
        case .reloadFailed(let reason):
            counters.counts[.reloadsFailed] += 1
            counters.lastReloadFailure = (wallNow, reason)
            server.statusChanged()
            logger.error("reload failed, keeping the running configuration: \(reason)")
            notifier.ready(status: "configuration reloaded")
        }
    }
}
