import GestureProtocol
import GestureServer

// The daemon's part of the server's own request types (GestureServer/Requests/): what the input
// thread does with each once the server hands it over (``DaemonRequests/perform(_:on:)``).

extension Define: InputThreadRequest {
    /// Waits behind the definition changes before it, then goes to the compiler's thread; the
    /// input thread installs what it makes and answers (``InputLoop/install(_:wallNow:)``).
    func perform(on loop: InputLoop, for asker: Asker, reply: RequestReply) {
        loop.definitionQueue.append(.define(self, client: asker.client, reply: reply), from: asker.client)
    }
}

extension Ping: InputThreadRequest {
    /// Done at once, unless a `define` of its connection waits or is being compiled: then once
    /// the last of those is done.
    func perform(on loop: InputLoop, for asker: Asker, reply: RequestReply) {
        loop.definitionQueue.ping(reply, from: asker.client)?.ok()
    }
}

extension Status: InputThreadRequest {
    func perform(on loop: InputLoop, for asker: Asker, reply: RequestReply) {
        reply.send(loop.status())
    }
}

extension Record: InputThreadRequest {
    func perform(on loop: InputLoop, for asker: Asker, reply: RequestReply) {
        loop.record(options, for: asker, reply: reply)
    }
}
