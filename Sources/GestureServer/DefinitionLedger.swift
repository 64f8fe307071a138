import GestureEngine
import GestureProtocol
import Synchronization

/// What each connection's definitions hold of the limits of all connections together
/// (``ServerLimits/maxClientDefinitions``, ``ServerLimits/maxClientTemplates``): the definitions
/// the engine runs for it, and its `define` still pending with the engine.
///
/// A `define` is admitted where it is decoded, off the server thread (``RequestDecoder``), and
/// the server thread settles it when the engine answers and forgets a connection when it closes:
/// both reach the ledger, under one lock, each for a few additions per connection.
final class DefinitionLedger: Sendable {
    private struct Entry {
        /// What the engine runs for the connection (less what a reload took).
        var accepted = Definitions()
        /// Its `define` admitted and not yet answered.
        var pending: Definitions?

        /// What counts against the limits of all connections together: what the engine runs,
        /// and while a `define` is pending the larger of it and the pending one, each count on
        /// its own — the engine may still refuse the pending one, and then the connection keeps
        /// what it had. (Counting the pending one alone let a refused shrinking `define` take all
        /// connections past the limit, after which even an undefine was refused.)
        var reserved: DefinitionCounts {
            let accepted = DefinitionCounts(self.accepted)
            guard let pending else { return accepted }
            return accepted.larger(DefinitionCounts(pending))
        }
    }

    /// How a `define` fared.
    enum Admission: Equatable {
        case admitted
        /// The connection has a `define` pending already.
        case busy
        /// It would take all connections together past a limit: why.
        case exceeds(String)
    }

    private let limits: ServerLimits
    private let entries = Mutex<[ClientID: Entry]>([:])

    init(limits: ServerLimits) {
        self.limits = limits
    }

    /// A connection was admitted.
    func open(_ client: ClientID) {
        entries.withLock { $0[client] = Entry() }
    }

    /// A connection closed: what it held is free.
    func close(_ client: ClientID) {
        entries.withLock { $0[client] = nil }
    }

    /// Whether `client` has a `define` pending.
    func hasPending(_ client: ClientID) -> Bool {
        entries.withLock { $0[client]?.pending != nil }
    }

    /// Admits `definitions` as `client`'s pending `define` unless it has one pending already, or
    /// they would take all connections together past ``ServerLimits/maxClientDefinitions`` or
    /// ``ServerLimits/maxClientTemplates`` (counting every other connection's definitions,
    /// pending ones included). A connection that has closed meanwhile is admitted to nothing.
    func admit(_ definitions: Definitions, for client: ClientID) -> Admission {
        entries.withLock { entries in
            guard entries[client]?.pending == nil else { return .busy }
            var total = DefinitionCounts(definitions)
            for (other, entry) in entries where other != client {
                let reserved = entry.reserved
                total.regions += reserved.regions
                total.recognizers += reserved.recognizers
                total.templates += reserved.templates
            }
            let (most, mostTemplates) = (limits.maxClientDefinitions, limits.maxClientTemplates)
            if total.recognizers > most {
                return .exceeds(
                    "all clients together may define at most \(most) recognizers; with these there would be \(total.recognizers)"
                )
            }
            if total.regions > most {
                return .exceeds(
                    "all clients together may define at most \(most) regions; with these there would be \(total.regions)")
            }
            if total.templates > mostTemplates {
                return .exceeds(
                    "all clients together may define at most \(mostTemplates) shape templates; with these there would be \(total.templates)"
                )
            }
            entries[client]?.pending = definitions
            return .admitted
        }
    }

    /// The engine answered `client`'s pending `define`: what it asked now runs, or it keeps
    /// what it had.
    func settle(_ client: ClientID, accepted: Bool) {
        entries.withLock { entries in
            guard let pending = entries[client]?.pending else { return }
            if accepted { entries[client]?.accepted = pending }
            entries[client]?.pending = nil
        }
    }

    /// A reload took some of `client`'s definitions: they no longer count.
    func dropped(_ message: DroppedMessage, client: ClientID) {
        let regions = Set(message.definitions.filter { $0.kind == .region }.map(\.name))
        let recognizers = Set(message.definitions.filter { $0.kind == .recognizer }.map(\.name))
        entries.withLock { entries in
            entries[client]?.accepted.regions.removeAll { regions.contains($0.name) }
            entries[client]?.accepted.recognizers.removeAll { recognizers.contains($0.name) }
        }
    }
}

/// How much of the limits of all connections together a connection holds.
struct DefinitionCounts {
    var regions: Int
    var recognizers: Int
    var templates: Int

    init(_ definitions: Definitions) {
        (regions, recognizers, templates) = (
            definitions.regions.count, definitions.recognizers.count, definitions.templateCount
        )
    }

    /// The larger of the two in each count.
    func larger(_ other: DefinitionCounts) -> DefinitionCounts {
        var larger = self
        larger.regions = max(regions, other.regions)
        larger.recognizers = max(recognizers, other.recognizers)
        larger.templates = max(templates, other.templates)
        return larger
    }
}

extension Definitions {
    /// Shape templates named or built in, over all its shape recognizers.
    var templateCount: Int {
        recognizers.reduce(0) { $0 + $1.parameters.templateCount }
    }
}
