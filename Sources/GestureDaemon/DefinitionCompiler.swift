import GestureEngine
import GestureServer
import NIOPosix

/// A change of the client definitions, in the order the clients caused it.
enum DefinitionChange: Sendable {
    /// A connection's `define` (replied to once it runs, or with the reason it was refused).
    case define(DefinitionRequest)
    /// A connection closed: its definitions go.
    case remove(ClientID)

    var owner: Owner {
        switch self {
        case .define(let request): request.client.owner
        case .remove(let client): client.owner
        }
    }
}

/// What the compiler made of a change: the set to install (nil: nothing changes), or why a
/// `define` was refused; and the generation of the set it was made from.
struct CompiledChange: Sendable {
    var change: DefinitionChange
    var basis: UInt64
    var result: Result<DefinitionSet?, SpecError>
}

/// Validates and compiles definition changes on a thread of its own, so that the input thread
/// never spends a frame's time on them (issue 12): it hands over the running ``DefinitionSet``
/// and the change, and gets the new set back through the ``RequestQueue`` to install between two
/// frames (``GestureEngine/install(_:at:into:)``, which only carries the devices' state over).
///
/// The thread is NIO's ``NIOThreadPool`` with one thread, started at the first change: a daemon
/// no client defines anything for runs no such thread, and the thread sleeps on a condition
/// variable (no timer, no wake-ups) while there is nothing to compile.
final class DefinitionCompiler: Sendable {
    private let pool = NIOThreadPool(numberOfThreads: 1)
    private let results: RequestQueue

    init(results: RequestQueue) {
        self.results = results
    }

    /// Makes the set `change` asks for from `basis` on the compiler's thread; the result comes
    /// back as ``ClientRequest/compiled(_:)``.
    func compile(_ change: DefinitionChange, from basis: DefinitionSet) {
        pool.start()
        pool.submit { [results] _ in
            let result: Result<DefinitionSet?, SpecError>
            switch change {
            case .define(let request):
                let definitions = request.definitions
                result = Result { () throws(SpecError) -> DefinitionSet? in
                    try basis.defining(
                        owner: request.client.owner, regions: definitions.regions,
                        recognizers: definitions.recognizers)
                }
            case .remove(let client):
                result = .success(basis.removing(client.owner))
            }
            results.compiled(CompiledChange(change: change, basis: basis.generation, result: result))
        }
    }

    /// Waits for a compile under way and stops the thread (a pool that was never started has
    /// nothing to stop).
    func shutDown() {
        try? pool.syncShutdownGracefully()
    }
}
