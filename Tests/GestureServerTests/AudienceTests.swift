import Foundation
import GestureEngine
import GestureLogging
import GestureProtocol
import Logging
import NIOCore
import TestSupport
import Testing

@testable import GestureServer

/// Who takes a publication is decided once, by the publisher, on the interest it holds; the
/// server delivers to that audience and decides again only for a connection whose subscription
/// changed since (docs/PROTOCOL.md, §6, "When a subscription applies"). These run the server's
/// core with no sockets: connections whose links keep every line.
@Suite struct AudienceTests {
    /// A connection that takes every line at once and keeps it.
    final class KeepingLink: SessionLink {
        var lines: [String] = []
        /// What ``isWritable`` says (tests of read back-pressure turn it off).
        var writable = true
        var isWritable: Bool { writable }
        func write(_ line: ByteBuffer) { lines.append(String(buffer: line)) }
        func flush() {}
        func close(after last: ByteBuffer?, deadline: NIODeadline) {}
        func closeNoLater(than deadline: NIODeadline) {}
        func logConnected(_ id: ClientID, logger: Logger, throttle: LogThrottle) {}
        var logPeer: String { "test" }
        func refusedMessageAnswered() {}
        /// Requests "read", for the session to take.
        var requests = CircularBuffer<LineFrame>()
        /// What the session last said about reading more.
        var reading = true
        func nextFrame() -> LineFrame? { requests.popFirst() }
        func setReading(_ reading: Bool) { self.reading = reading }
        /// Who it is: root, who may see where fingers are, unless told otherwise.
        var peer: PeerCredentials? = PeerCredentials(uid: 0, gid: 0)
        var peerCredentials: PeerCredentials? { peer }
    }

    /// A connection of the model: what it sent last, as the protocol reads it (the oracle is
    /// written from docs/PROTOCOL.md §6–§8, not from the server's ``Interest/Reader``).
    struct Connection {
        let session: ClientSession
        let link: KeepingLink
        let client: UInt64
        /// Whether it may see where fingers are (docs/RECORDING.md): root may, user 1000 may
        /// not (the core's rule names no group).
        let seesPositions: Bool
        var filters: Filters?
    }

    /// What a random publication is private to (docs/RECORDING.md, "Who may see where fingers
    /// are"): the model's own account, beside the ``Privacy`` the publication carries.
    enum Secret {
        case open
        /// Landed in a private region of the configuration: for who may see where fingers are.
        case configuration
        /// Landed in a private region of these clients: for the one client, or nobody.
        case clients(Set<UInt64>)

        var privacy: Privacy {
            switch self {
            case .open: return .open
            case .configuration: return Privacy(privateTo: .configuration)
            case .clients(let ids):
                var privacy = Privacy.open
                for id in ids { privacy.formUnion(Privacy(privateTo: .client(id))) }
                return privacy
            }
        }

        func admits(_ client: UInt64, seesPositions: Bool) -> Bool {
            switch self {
            case .open: true
            case .configuration: seesPositions
            case .clients(let ids): ids == [client]
            }
        }

        static func random(clients: [UInt64], _ rng: inout SplitMix64) -> Secret {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: return .configuration
            case 1 where !clients.isEmpty:
                let some = clients.filter { _ in Int.random(in: 0..<3, using: &rng) == 0 }
                return .clients(Set(some).union([clients[0]]))
            default: return .open
            }
        }
    }

    struct Filters {
        var gestures: Set<String>?
        var kinds: Set<GestureKind>?
        var states: Set<GestureState>?
        var regions: Set<String>?
        var devices: Set<String>?
        var touches: Bool
        var explain: Bool

        var json: String {
            func list<T>(_ key: String, _ values: Set<T>?, _ spell: (T) -> String) -> String {
                guard let values else { return "" }
                return #","\#(key)":[\#(values.map { "\"\(spell($0))\"" }.sorted().joined(separator: ","))]"#
            }
            return #"{"type":"subscribe","id":"s""# + list("gestures", gestures) { $0 }
                + list("kinds", kinds) { $0.rawValue } + list("states", states) { $0.rawValue }
                + list("regions", regions) { $0 } + list("devices", devices) { $0 }
                + #","touches":\#(touches),"explain":\#(explain)}"#
        }

        /// The line `client` (which may see where fingers are, or not) gets for `publication`,
        /// private as `secret` says, under these filters; nil when it takes none.
        func line(
            of publication: Publication, secret: Secret, client: UInt64, seesPositions: Bool,
            encoder: inout LineEncoder
        ) throws -> String? {
            func visible(_ owner: Owner) -> Bool { owner == .configuration || owner == .client(client) }
            func passes<T>(_ filter: Set<T>?, _ value: T) -> Bool { filter?.contains(value) ?? true }
            // A contact carries no privacy: it is decided before any region (it is for who may see
            // where fingers are, or nobody).
            let admitted = secret.admits(client, seesPositions: seesPositions)
            let message: ServerMessage
            switch publication {
            case .gesture(let g, let owner, _, _):
                guard
                    admitted, visible(owner), passes(gestures, g.name), passes(kinds, g.kind), passes(states, g.state),
                    passes(regions, g.region), passes(devices, g.device)
                else { return nil }
                message = .gesture(g)
            case .touch(var t, let clientRegions, _, _):
                // R1: a touch that landed in a region of the client's own is seen there.
                if let own = clientRegions.first(where: { $0.owner == .client(client) }) { t.region = own.name }
                guard admitted, touches, seesPositions, passes(regions, t.region), passes(devices, t.device) else {
                    return nil
                }
                message = .touch(t)
            case .explain(let e, let owner, _, _):
                guard
                    admitted, explain, visible(owner), passes(gestures, e.name), passes(kinds, e.kind),
                    passes(regions, e.region), passes(devices, e.device)
                else { return nil }
                message = .explain(e)
            case .contact(let c, _):
                // What the stage before an arena did to a contact: an explanation of no recognizer,
                // with where the contact landed.
                guard explain, seesPositions, passes(devices, c.device) else { return nil }
                message = .contact(c)
            case .device, .announcement, .recognizers, .recording, .raw:
                return nil
            }
            return String(decoding: try encoder.encode(message), as: UTF8.self)
        }

        static func random(_ rng: inout SplitMix64) -> Filters {
            func maybe<T: Hashable>(_ all: [T]) -> Set<T>? {
                guard Int.random(in: 0..<3, using: &rng) == 0 else { return nil }
                return Set(all.filter { _ in Bool.random(using: &rng) })
            }
            return Filters(
                gestures: maybe(AudienceTests.names), kinds: maybe([.tap, .swipe, .pan]),
                states: maybe([.recognized, .began, .changed]), regions: maybe(AudienceTests.regions),
                devices: maybe(AudienceTests.devices), touches: Bool.random(using: &rng),
                explain: Bool.random(using: &rng))
        }
    }

    static let names = ["a", "b", "c"]
    static let regions = ["root", "left", "pad"]
    static let devices = ["event1", "event2"]

    static func core() throws -> ServerCore {
        ServerCore(
            configuration: GestureServer.Configuration(listener: .path("/nonexistent/g.sock"), daemonVersion: "test"),
            delegate: nil, mailbox: try Mailbox(),
            logger: Logger(label: "audience", factory: { _ in SwiftLogNoOpLogHandler() }),
            decoder: RequestDecoder(onCallingThread: true))
    }

    /// A connection of root, or (`seesPositions` false) of user 1000, whom the core's rule
    /// does not let see where fingers are.
    static func connect(_ core: ServerCore, seesPositions: Bool = true) throws -> Connection {
        let link = KeepingLink()
        if !seesPositions { link.peer = PeerCredentials(uid: 1000, gid: 1000) }
        let session = ClientSession(core: core, link: link, transport: .unixSocket(user: link.peer?.uid))
        session.start()
        let client = try #require(session.id).rawValue
        return Connection(session: session, link: link, client: client, seesPositions: seesPositions)
    }

    /// Hands `connection` a request and returns once it is answered: a decoded request (a
    /// `subscribe` with filters) comes back through the mailbox, whose jobs run here, on this
    /// test's "server thread" (the core's decoder decodes on the calling thread: a test that
    /// waited for another thread here would hold one of the few threads every test shares).
    static func send(_ line: String, to connection: Connection, core: ServerCore) throws {
        let answered = connection.link.lines.count
        core.beginTurn()
        connection.link.requests.append(.line(ByteBuffer(string: line)))
        connection.session.pump()
        try runMailbox(core, until: connection.link.lines.count > answered)
    }

    /// Runs the mailbox's jobs as they come until `done` holds (20 s at most; only a test of the
    /// decoder's own thread waits here for another thread).
    static func runMailbox(_ core: ServerCore, until done: @autoclosure () -> Bool) throws {
        while !done() {
            var ready = pollfd(fd: core.mailbox.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 20_000) == 1 else { throw Unexpected("nothing came back from the decoder") }
            for job in core.mailbox.take() { job.run() }
        }
    }

    /// A random `gesture`, `touch`, `explain` or `contact`, owned by the configuration or by one of
    /// `clients`, private as `secret` says.
    static func publication(
        _ seq: UInt64, clients: [UInt64], secret: Secret, _ rng: inout SplitMix64
    ) throws -> Publication {
        let owner: Owner =
            clients.isEmpty || Bool.random(using: &rng) ? .configuration : .client(clients.randomElement(using: &rng)!)
        let region = regions.randomElement(using: &rng)!
        let device = devices.randomElement(using: &rng)!
        switch Int.random(in: 0..<4, using: &rng) {
        case 0:
            let kind = [GestureKind.tap, .swipe, .pan].randomElement(using: &rng)!
            let state: GestureState = kind == .pan ? [.began, .changed].randomElement(using: &rng)! : .recognized
            return .gesture(
                Sample.gesture(
                    seq, name: names.randomElement(using: &rng)!, kind: kind, state: state, device: device,
                    region: region), owner: owner, privacy: secret.privacy)
        case 1:
            var touch = Sample.touch(seq, id: UInt32(seq), phase: .began, region: region)
            touch.device = device
            let landedIn = clients.filter { _ in Int.random(in: 0..<4, using: &rng) == 0 }.map {
                ClientRegion(owner: .client($0), name: "own-\(Int.random(in: 0..<2, using: &rng))")
            }
            return .touch(touch, clientRegions: landedIn, privacy: secret.privacy)
        case 2:
            return .contact(
                ContactMessage(
                    decision: .ignored, device: device, time: Timestamp(microseconds: Int64(seq)), touch: TouchID(1),
                    position: SurfacePoint(x: 0.5, y: 0.95), zone: 0, text: "ignored \(seq)"))
        default:
            let line =
                #"{"decision":"failed","device":"\#(device)","kind":"swipe","name":"\#(names.randomElement(using: &rng)!)","#
                + #""region":"\#(region)","text":"why \#(seq)","time_us":\#(seq),"type":"explain"}"#
            return .explain(
                try JSONDecoder().decode(ExplainMessage.self, from: Data(line.utf8)), owner: owner,
                privacy: secret.privacy)
        }
    }

    /// Random subscribes, unsubscribes, disconnects and connects interleaved with batches, each
    /// decided on an interest the publisher read a few changes ago (as the daemon's publisher may
    /// hold one): every connection gets exactly the lines its subscription at delivery takes, of
    /// what was published, in order; and what the publisher left out no connection unchanged since
    /// its interest takes. Fails if the server delivered to a reader that changed since without
    /// deciding again, or if the publisher's audience and the rule disagree. Some connections may
    /// not see where fingers are (their `touches` are refused, and no raw touch, contact or
    /// private gesture reaches them), and some publications are private (``Secret``): who may see
    /// where fingers are is part of every decision.
    @Test(arguments: 0..<40)
    func `every connection gets what its subscription takes when it is delivered`(run: Int) throws {
        let seed = 0x6175_6469_656E_6365 &+ UInt64(run)
        var rng = SplitMix64(seed: seed)
        var encoder = LineEncoder()
        let core = try Self.core()
        var connections = try (0..<4).map { _ in try Self.connect(core, seesPositions: Bool.random(using: &rng)) }
        /// Interests the publisher read, oldest first; what a connection's filters were after each.
        var read: [Interest] = [Interest()]
        var seq: UInt64 = 0
        for step in 0..<120 {
            let context = "seed 0x\(String(seed, radix: 16)), step \(step)"
            switch Int.random(in: 0..<10, using: &rng) {
            case 0...2:
                let i = Int.random(in: 0..<connections.count, using: &rng)
                let filters = Filters.random(&rng)
                try Self.send(filters.json, to: connections[i], core: core)
                let refused = filters.touches && !connections[i].seesPositions
                #expect(
                    connections[i].link.lines.last?.contains(#""code":"permission-denied""#) == refused,
                    "\(context): \(connections[i].link.lines.last ?? "")")
                // A refused subscribe leaves the one before in place.
                if !refused { connections[i].filters = filters }
            case 3:
                let i = Int.random(in: 0..<connections.count, using: &rng)
                try Self.send(#"{"type":"unsubscribe","id":"u"}"#, to: connections[i], core: core)
                connections[i].filters = nil
            case 4:
                let gone = connections.remove(at: Int.random(in: 0..<connections.count, using: &rng))
                gone.session.closed()
                connections.append(try Self.connect(core, seesPositions: Bool.random(using: &rng)))
            case 5...6:
                if let fresh = core.interest.read(newerThan: read.last!.version) { read.append(fresh) }
            default:
                // The publisher decides on an interest it read (most often the latest).
                let stale = Int.random(in: 0..<4, using: &rng) == 0
                let back = min(read.count - 1, stale ? Int.random(in: 0..<4, using: &rng) : 0)
                let interest = read[read.count - 1 - back]
                var batch: [(publication: Publication, secret: Secret)] = []
                for _ in 0..<Int.random(in: 1...6, using: &rng) {
                    seq += 1
                    let clients = connections.map(\.client)
                    let secret = Secret.random(clients: clients, &rng)
                    let publication = try Self.publication(seq, clients: clients, secret: secret, &rng)
                    if let decided = interest.decided(publication) {
                        batch.append((decided, secret))
                        continue
                    }
                    // Left out: no connection unchanged since the interest takes it.
                    for connection in connections where connection.session.readerVersion <= interest.version {
                        let line = try connection.filters?.line(
                            of: publication, secret: secret, client: connection.client,
                            seesPositions: connection.seesPositions, encoder: &encoder)
                        #expect(line == nil, "\(context): left out, but \(connection.client) takes it: \(line ?? "")")
                    }
                }
                for connection in connections { connection.link.lines.removeAll() }
                var published = batch.map(\.publication)
                core.publish(draining: &published)
                #expect(published.isEmpty, "\(context): the batch is emptied")
                for connection in connections {
                    let expected = try batch.compactMap {
                        try connection.filters?.line(
                            of: $0.publication, secret: $0.secret, client: connection.client,
                            seesPositions: connection.seesPositions, encoder: &encoder)
                    }
                    #expect(
                        connection.link.lines == expected,
                        "\(context): client \(connection.client), filters \(connection.filters?.json ?? "none")")
                }
            }
        }
    }

    @Test func `an audience of more than 64 readers names each once, in order`() {
        var audience = Audience(decidedAt: 1)
        let slots = [0, 5, 63, 64, 65, 127, 128, 300]
        for slot in slots.reversed() { audience.add(slot, sees: .asPublished) }
        audience.add(64, sees: .asPublished)
        #expect(Array(audience.readers) == slots)
        #expect(slots.allSatisfy { audience.readers.contains($0) } && !audience.readers.contains(6))
        #expect(!audience.isEmpty && Audience.undecided.isEmpty)
    }
}
