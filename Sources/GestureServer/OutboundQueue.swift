import NIOCore

/// The messages waiting for one slow client, bounded, with coalescing of updates.
///
/// A message only waits here when the client's socket cannot take it (the kernel buffer and
/// SwiftNIO's write buffer are full), so everything below concerns slow clients only. An update
/// (`changed` gesture, `moved` touch) replaces the previous update of the same stream that is
/// still waiting — removed from its place and the newest appended, so `seq` stays increasing —
/// and any other message of that stream ends the run of updates that may merge. A client whose
/// queue still holds ``limit`` messages, or ``byteLimit`` bytes, overflows: the bytes bound what
/// a client that never reads holds of the daemon's memory whatever its messages weigh (a
/// recorder's `raw` lines, `status` replies), the count what it costs to go through. It counts
/// the replies among its messages (``replies``): what the connection's own requests made, which
/// decides whether it is read.
///
/// A plain value with no I/O, so its rules are tested on their own (SwiftNIO's style).
struct OutboundQueue<Line: QueuedLine> {
    /// The stream a message belongs to, for coalescing.
    enum StreamKey: Hashable {
        /// One recognizer on one device.
        case gesture(name: String, device: String)
        /// One touch on one device.
        case touch(device: String, touch: UInt32)
    }

    enum EnqueueResult: Equatable {
        case queued
        /// The message replaced an older update of its stream.
        case coalesced
        /// The queue is full; the message was not added.
        case overflow
    }

    /// Messages that may wait at once.
    let limit: Int
    /// Bytes that may wait at once: a message is queued while fewer wait, so the queue holds at
    /// most this and one message more.
    let byteLimit: Int
    /// A message and whether it is a reply to one of the connection's requests.
    private struct Entry {
        var line: Line
        var isReply: Bool
    }

    /// Slots in order; `nil` marks a message that was coalesced away.
    private var slots: [Entry?] = []
    /// The first slot not yet taken.
    private var head = 0
    /// The slot of the waiting update of each stream that may still merge.
    private var latestUpdate: [StreamKey: Int] = [:]
    /// Messages waiting (slots that are not `nil`).
    private(set) var count = 0
    /// Of those, replies.
    private(set) var replies = 0
    /// Their bytes (``QueuedLine/queuedBytes``).
    private(set) var bytes = 0

    init(limit: Int, byteLimit: Int) {
        precondition(limit > 0 && byteLimit > 0, "a queue must hold at least one message")
        self.limit = limit
        self.byteLimit = byteLimit
    }

    var isEmpty: Bool { count == 0 }

    /// Slots held, live or not (what compaction keeps small).
    var storage: Int { slots.count - head }

    /// Adds `line`; `stream` names its stream, `isUpdate` says whether it may replace (and be
    /// replaced by) another update of that stream; `isReply` whether it answers a request (a
    /// reply has no stream).
    mutating func enqueue(_ line: Line, stream: StreamKey?, isUpdate: Bool, isReply: Bool = false) -> EnqueueResult {
        var result = EnqueueResult.queued
        if let stream {
            if isUpdate, let old = latestUpdate[stream] {
                bytes -= slots[old]?.line.queuedBytes ?? 0
                slots[old] = nil
                count -= 1
                result = .coalesced
            }
            latestUpdate[stream] = nil
        }
        guard count < limit, bytes < byteLimit else {
            return .overflow
        }
        if let stream, isUpdate { latestUpdate[stream] = slots.count }
        slots.append(Entry(line: line, isReply: isReply))
        count += 1
        bytes += line.queuedBytes
        if isReply { replies += 1 }
        compactIfWasteful()
        return result
    }

    /// Takes the oldest waiting message.
    mutating func dequeue() -> Line? {
        while head < slots.count {
            let entry = slots[head]
            slots[head] = nil
            head += 1
            if let entry {
                count -= 1
                bytes -= entry.line.queuedBytes
                if entry.isReply { replies -= 1 }
                if count == 0 { removeAll(keepingCapacity: true) }
                return entry.line
            }
        }
        return nil
    }

    /// Drops everything; the connection closing, its storage too (a connection that overflowed
    /// does not keep the room its backlog took).
    mutating func removeAll(keepingCapacity: Bool = false) {
        slots.removeAll(keepingCapacity: keepingCapacity)
        head = 0
        count = 0
        replies = 0
        bytes = 0
        latestUpdate.removeAll(keepingCapacity: keepingCapacity)
    }

    /// Slots left behind by `dequeue` and by coalescing are reclaimed once they outnumber the
    /// live messages, so storage stays within a small multiple of ``limit`` however long a client
    /// stalls (amortised O(1) per message).
    private mutating func compactIfWasteful() {
        let used = slots.count
        guard used > 64, used > 2 * count + 16 else { return }
        var moved: [Entry?] = []
        moved.reserveCapacity(max(count * 2, 64))
        var newIndex: [Int: Int] = [:]
        for i in head..<used {
            if let entry = slots[i] {
                newIndex[i] = moved.count
                moved.append(entry)
            }
        }
        latestUpdate = latestUpdate.compactMapValues { newIndex[$0] }
        slots = moved
        head = 0
    }
}

/// What a queued message weighs: the bytes it keeps waiting.
protocol QueuedLine {
    var queuedBytes: Int { get }
}

extension ByteBuffer: QueuedLine {
    /// Its bytes. What waiting keeps is its storage, which may be bigger and shared (the server's
    /// encoding buffer): ``ClientSession`` gives a line storage of its own, at most twice its
    /// size, before it queues it.
    var queuedBytes: Int { readableBytes }
}
