import Foundation
import GestureEngine
import Glibc
import TestSupport
import Testing

@testable import GestureDaemon

/// A reload through the daemon's own parts — the definition queue the input thread keeps and the
/// compiler — with the test's thread in the input thread's place: the reload is read and compiled
/// on the compiler's thread (never on the thread that hands it over), at a lower priority, and a
/// `ping` taken meanwhile is answered at once, while the reload is held midway.
@Suite struct DefinitionCompilerTests {
    /// The input thread's queue, with pings and connections as numbers.
    typealias Queue = DefinitionQueue<DefinitionChange, Int, UInt64>

    /// The calling thread's nice value (/proc/thread-self/stat, field 19).
    static func threadNice() -> Int32 {
        let stat = (try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8)) ?? ""
        // After the command's name, which may hold spaces, in parentheses: state is field 3.
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        return fields.count > 16 ? Int32(fields[16]) ?? -99 : -99
    }

    /// A compiler whose thread stops midway through each change until the test lets it go, and
    /// says on which thread, at which nice value, it got there.
    final class HeldCompiler: Sendable {
        let entered = DispatchSemaphore(value: 0)
        private let gate = DispatchSemaphore(value: 0)
        let seen = Observed<(thread: pthread_t, nice: Int32)?>(nil)

        func compiler(results: RequestQueue) -> DefinitionCompiler {
            DefinitionCompiler(results: results) { [self] _ in
                seen.update { $0 = (pthread_self(), DefinitionCompilerTests.threadNice()) }
                entered.signal()
                gate.wait()
            }
        }

        func letGo() { gate.signal() }
    }

    /// A reload of a one-recognizer configuration file, to be handed to a ``HeldCompiler``'s
    /// compiler from the engine's empty set: the two tests of what a held reload does not hold up.
    struct HeldReload {
        let path: String
        let running: DefinitionSet
        let requests: RequestQueue
        let held = HeldCompiler()
        let compiler: DefinitionCompiler

        init() throws {
            path = try configurationFile("recognizers:\n  - {name: tap, kind: tap}\n")
            running = try GestureEngine(configuration: EngineConfiguration()).definitions
            requests = try RequestQueue()
            compiler = held.compiler(results: requests)
        }

        func removeFile() { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
    }

    static func configurationFile(_ text: String) throws -> String {
        let directory = try DaemonProcessTests.temporaryDirectory()
        let path = directory + "/gestured.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Waits on the queue's eventfd (a generous deadline: a loaded host) and takes what came.
    static func results(_ requests: RequestQueue) -> [ClientRequest] {
        var ready = pollfd(fd: requests.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 60_000) == 1 else { return [] }
        return requests.drain().map(\.request)
    }

    static func outcome(_ requests: [ClientRequest]) -> CompiledChange.Outcome? {
        for request in requests {
            if case .compiled(let compiled) = request { return compiled.outcome }
        }
        return nil
    }

    @Test func `a ping is answered while a reload is held midway on the compiler's thread`() throws {
        let reload = try HeldReload()
        defer { reload.removeFile() }
        let (path, running, requests, held, compiler) =
            (reload.path, reload.running, reload.requests, reload.held, reload.compiler)
        defer { compiler.shutDown() }

        // The input thread's part: the reload queued, handed to the compiler.
        var queue = Queue()
        var actions: [Queue.Action] = []
        queue.append(.reload(path), from: nil)
        queue.next(skipping: { _ in false }, into: &actions)
        guard case .compile(let change)? = actions.first, actions.count == 1 else {
            Issue.record("the reload was not handed to the compiler: \(actions)")
            return
        }
        compiler.compile(change, from: running)
        #expect(held.entered.wait(timeout: .now() + 60) == .success, "the compiler's thread took the reload")
        let midway = try #require(held.seen.value)
        #expect(pthread_equal(midway.thread, pthread_self()) == 0, "not on the thread that handed it over")
        #expect(midway.nice == min(19, Self.threadNice() + DefinitionCompiler.niceness), "below the input thread")

        // A ping taken now is answered at once, the reload still held.
        #expect(queue.ping(1, from: 3) == 1, "answered at once")
        #expect(queue.isCompiling)
        #expect(requests.drain().isEmpty, "nothing compiled yet")

        held.letGo()
        guard case .reloaded(_, let next, let dropped)? = Self.outcome(Self.results(requests)) else {
            Issue.record("no reload came back")
            return
        }
        #expect(next?.configuration.recognizers.map(\.name) == ["tap"])
        #expect(dropped.isEmpty)
    }

    /// SIGTERM during a reload: the daemon does not wait for the compile (at its low priority on
    /// a busy machine it held the exit for 1.6 s once).
    @Test func `shutting the compiler down does not wait for a compile under way`() throws {
        let reload = try HeldReload()
        defer { reload.removeFile() }
        let (held, compiler) = (reload.held, reload.compiler)
        compiler.compile(.reload(reload.path), from: reload.running)
        #expect(held.entered.wait(timeout: .now() + 60) == .success)
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            compiler.shutDown()
            stopped.signal()
        }
        #expect(stopped.wait(timeout: .now() + 60) == .success, "shutDown returned while the reload was held")
        held.letGo()
    }

    /// SIGHUP with nothing changed for the engine (the same file, or only the daemon's own
    /// settings) keeps the running set: nothing in progress is cancelled.
    @Test func `a reload that changes nothing the engine runs keeps the running set`() throws {
        let text = "recognizers:\n  - {name: tap, kind: tap}\n"
        let path = try Self.configurationFile(text)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let loaded = try ConfigurationLoader.load(contentsOf: path)
        let running = try GestureEngine(configuration: loaded.engineConfiguration).definitions
        let requests = try RequestQueue()
        let compiler = DefinitionCompiler(results: requests)
        defer { compiler.shutDown() }

        try ("log-level: debug\n" + text).write(toFile: path, atomically: true, encoding: .utf8)
        compiler.compile(.reload(path), from: running)
        guard case .reloaded(let fresh, let next, _)? = Self.outcome(Self.results(requests)) else {
            Issue.record("no reload came back")
            return
        }
        #expect(next == nil, "the running set stays")
        #expect(fresh.configuration.logLevel != loaded.logLevel, "the daemon's own settings are the new ones")

        try (text + "  - {name: double, kind: tap, taps: 2}\n").write(toFile: path, atomically: true, encoding: .utf8)
        compiler.compile(.reload(path), from: running)
        guard case .reloaded(_, let changed, _)? = Self.outcome(Self.results(requests)) else {
            Issue.record("no reload came back")
            return
        }
        #expect(changed?.configuration.recognizers.map(\.name) == ["tap", "double"])
    }
}
