import CLinuxSupport
import GestureEngine
import GestureServer
import NIOPosix

/// A change of the definitions, in the order the clients (and the operator) caused it.
enum DefinitionChange: Sendable {
    /// A connection's `define` (replied to once it runs, or with the reason it was refused).
    case define(Define, client: ClientID, reply: RequestReply)
    /// A connection closed: its definitions go.
    case remove(ClientID)
    /// SIGHUP: the configuration file at this path is read again, with its drop-ins.
    case reload(String)
}

/// What the compiler made of a change, and the generation of the set it was made from.
struct CompiledChange: Sendable {
    enum Outcome: Sendable {
        /// The set to install (nil: nothing changes).
        case changed(DefinitionSet?)
        /// A `define` the rules refuse.
        case refused(SpecError)
        /// A reload: the configuration as loaded (with the files read), its set (nil: the engine's
        /// part is the running one's, which stays, its gestures in progress too), and what it took
        /// from the clients.
        case reloaded(LoadedConfiguration, DefinitionSet?, dropped: [DroppedDefinitions])
        /// A configuration file that does not load or validate (the running one stays).
        case reloadFailed(String)
    }

    var change: DefinitionChange
    var basis: UInt64
    var outcome: Outcome
}

/// Validates and compiles definition changes (and reads the configuration file for a reload) on a
/// thread of its own, so that the input thread never spends a frame's time on them: it
/// hands over the running ``DefinitionSet`` and the change, and gets the new set back through the ``RequestQueue`` to install between two
/// frames (``GestureEngine/install(_:at:into:)``, which only carries the devices' state over).
///
/// The thread (`compiler`) is NIO's ``NIOThreadPool`` with one thread, started at the first
/// change — not the server's worker, whose other clients' requests a compile would hold
/// (CONTRIBUTING.md, "Threads"): a daemon
/// no client defines anything for runs no such thread, and the thread sleeps on a condition
/// variable (no timer, no wake-ups) while there is nothing to compile. It runs ``niceness``
/// below the daemon's priority: on a small machine a reload of the largest configuration (~0.5 s
/// of a core) yields the cores to the input thread whenever that has a frame to handle.
final class DefinitionCompiler: Sendable {
    /// How much higher the compiler thread's nice value is than the daemon's (up to 19).
    static let niceness: Int32 = 10

    private let pool = NIOThreadPool(numberOfThreads: 1)
    private let results: RequestQueue
    /// Runs on the compiler's thread between reading a change's input and compiling it (tests
    /// hold a reload there).
    private let midway: (@Sendable (DefinitionChange) -> Void)?

    init(results: RequestQueue, midway: (@Sendable (DefinitionChange) -> Void)? = nil) {
        self.results = results
        self.midway = midway
    }

    /// Makes the set `change` asks for from `basis` on the compiler's thread; the result comes
    /// back as ``ClientRequest/compiled(_:)``.
    func compile(_ change: DefinitionChange, from basis: DefinitionSet) {
        pool.start()
        pool.submit { [results, midway] _ in
            _ = gestured_lower_thread_priority(Self.niceness)
            _ = gestured_name_thread("compiler")
            results.compiled(
                CompiledChange(change: change, basis: basis.generation, outcome: Self.make(change, basis, midway)))
        }
    }

    private static func make(
        _ change: DefinitionChange, _ basis: DefinitionSet, _ midway: (@Sendable (DefinitionChange) -> Void)?
    ) -> CompiledChange.Outcome {
        switch change {
        case .define(let request, let client, _):
            midway?(change)
            do {
                return .changed(
                    try basis.defining(
                        owner: client.owner, regions: request.definitions.regions,
                        recognizers: request.definitions.recognizers))
            } catch {
                return .refused(error)
            }
        case .remove(let client):
            midway?(change)
            return .changed(basis.removing(client.owner))
        case .reload(let path):
            // The file and its drop-ins as they are now: a drop-in added or removed since counts.
            let fresh: LoadedConfiguration
            do {
                fresh = try ConfigurationLoader.loadSet(contentsOf: path)
            } catch {
                return .reloadFailed("\(error)")
            }
            midway?(change)
            let engine = fresh.configuration.engineConfiguration
            // Nothing the engine runs changed (a reload for the daemon's own settings, or none):
            // the running set stays, and with it every gesture in progress.
            if engine == basis.configuration { return .reloaded(fresh, nil, dropped: []) }
            do {
                let (next, dropped) = try basis.reloading(engine)
                return .reloaded(fresh, next, dropped: dropped)
            } catch {
                return .reloadFailed("\(path): \(error)")
            }
        }
    }

    /// Stops the thread once a compile under way is done, without waiting for it: its result
    /// would come after the input loop has ended, and at the thread's low priority on a busy
    /// machine a reload of the largest configuration held the daemon's exit for over a second.
    /// (A pool that was never started has nothing to stop.)
    func shutDown() {
        pool.shutdownGracefully { _ in }
    }
}
