import GestureProtocol
import GestureServer

/// A request type the daemon performs on its input thread, declared in a file of its own: the
/// ``RequestType`` (spelling, decoding, refusals) and what the input thread does with it, between
/// two frames. Like everything there, it does not take time in proportion to what the client
/// sent (CONTRIBUTING.md, "The input thread"); work that does goes to a thread of its own.
protocol InputThreadRequest: RequestType {
    /// Performs it on the input thread and answers through `reply`, once.
    func perform(on loop: InputLoop, for asker: Asker, reply: RequestReply)
}

extension InputThreadRequest {
    /// Hands it to the input thread (the server's delegate is the daemon's ``RequestQueue``),
    /// behind what was asked before it.
    func perform(for asker: Asker, reply: RequestReply) {
        guard let daemon = asker.daemon else {
            return reply.refuse(ErrorMessage(code: .unavailable, message: "no daemon behind this server"))
        }
        daemon.perform(DaemonJob(request: self, asker: asker, reply: reply))
    }
}

/// The request types the daemon declares, one line each (adding one: CONTRIBUTING.md, "Adding a
/// request type"); the server serves them beside its own (`ServerRequests`).
enum DaemonRequests {
    static let all: [any InputThreadRequest.Type] = [Panels.self, StopRecording.self]

    /// Performs a request the server handed over (input thread): one of ``all``, or of the
    /// server's own types the daemon has a part of (Requests/ServerTypes.swift), so the cast
    /// finds its type.
    static func perform(_ job: DaemonJob, on loop: InputLoop) {
        guard let request = job.request as? any InputThreadRequest else {
            return job.reply.refuse(
                ErrorMessage(code: .unavailable, message: "the daemon does not perform \(type(of: job.request).name)"))
        }
        request.perform(on: loop, for: job.asker, reply: job.reply)
    }
}
