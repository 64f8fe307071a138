/// Who takes one ``Publication``, decided once: by the publisher, on the ``Interest`` it holds,
/// before the message is built (``Interest/decided(_:)``, ``WireMapping``). The server delivers
/// to exactly these readers, and decides again only for a reader whose subscription changed
/// after ``decidedAt`` (it subscribed, unsubscribed or closed since): a connection that just
/// unsubscribed never gets a message it no longer takes, and one that just subscribed gets what
/// was published for the others and it takes too (docs/PROTOCOL.md, §6, "When a subscription
/// applies").
///
/// Readers are named by their slot (``Interest/Reader/slot``), a small number the server gives a
/// connection while it is subscribed: up to 64 readers fit in one word, so an audience costs no
/// allocation in the common case.
public struct Audience: Sendable, Equatable {
    /// A reader that takes a touch where it landed in a region of its own (R1), and that region.
    struct Landing: Sendable, Equatable {
        var slot: Int
        var region: String
    }

    /// The ``Interest/version`` the audience was decided on.
    let decidedAt: UInt64
    /// The readers that take the message as published.
    private(set) var readers = ReaderSet()
    /// The readers that see a touch land in a region of their own, each with that region (empty
    /// unless the touch landed in a client's region: no allocation otherwise).
    private(set) var landings: [Landing] = []

    /// Decided before any reader subscribed: the server decides for every reader it has. What a
    /// publisher that holds no ``Interest`` hands the server (the tests, a library user).
    public static let undecided = Audience(decidedAt: 0)

    init(decidedAt: UInt64) {
        self.decidedAt = decidedAt
    }

    /// No reader takes it.
    var isEmpty: Bool { readers.isEmpty && landings.isEmpty }

    mutating func add(_ slot: Int, sees view: Interest.Reader.View) {
        switch view {
        case .asPublished: readers.insert(slot)
        case .landedIn(let region): landings.append(Landing(slot: slot, region: region))
        }
    }
}

/// A set of reader slots: one word for the first 64, more words only beyond.
struct ReaderSet: Sendable, Equatable, Sequence {
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    mutating func insert(_ slot: Int) {
        precondition(slot >= 0, "reader slots are not negative")
        if slot < 64 {
            low |= 1 << UInt64(slot)
            return
        }
        let word = slot / 64 - 1
        if high.count <= word { high.append(contentsOf: repeatElement(0, count: word + 1 - high.count)) }
        high[word] |= 1 << UInt64(slot % 64)
    }

    func contains(_ slot: Int) -> Bool {
        if slot < 64 { return low & (1 << UInt64(slot)) != 0 }
        let word = slot / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(slot % 64)) != 0
    }

    /// The slots, in increasing order.
    struct Iterator: IteratorProtocol {
        private let set: ReaderSet
        /// The word being read (0: `low`), and what is left of it.
        private var word = 0
        private var bits: UInt64

        init(_ set: ReaderSet) {
            self.set = set
            bits = set.low
        }

        mutating func next() -> Int? {
            while bits == 0 {
                guard word < set.high.count else { return nil }
                bits = set.high[word]
                word += 1
            }
            let bit = bits.trailingZeroBitCount
            bits &= bits - 1
            return word * 64 + bit
        }
    }

    func makeIterator() -> Iterator { Iterator(self) }
}
