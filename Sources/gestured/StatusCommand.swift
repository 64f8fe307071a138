import ArgumentParser
import FoundationEssentials
import GestureClient
import GestureMetrics
import GestureProtocol

#if canImport(Glibc)
import Glibc
#endif

/// `gestured status`: what a running daemon says of itself (a `status` request).
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a running daemon's version, configuration, panels, clients and counters.",
        discussion: """
            Asks the daemon on --socket (a `status` request, \(Installed.guide("PROTOCOL"))) and prints its answer: \
            readable text, the message itself as JSON (--json), or its counters as the metrics \
            endpoint serves them (--format prometheus or openmetrics, \(Installed.guide("FLEET"))). With --output, \
            the text goes to a temporary file in the same directory, which is then renamed over FILE: \
            a reader (node_exporter's textfile collector) sees the old file or the new one, never \
            half of one. Exits non-zero when the daemon cannot be reached; FILE is then left as it was.

            Examples:
              gestured status
              gestured status --json | jq '.configuration'
              gestured status --format prometheus \\
                --output /var/lib/prometheus/node-exporter/gestured.prom
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, prometheus, openmetrics
    }

    @Option(name: .long, help: "The daemon's socket.")
    var socket = GestureProtocol.defaultSocketPath

    @Flag(help: "Print the status message as JSON (keys sorted): --format json.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "text, json, prometheus (the text format node_exporter's textfile collector reads) or openmetrics.",
            valueName: "format"))
    var format: Format?

    @Option(
        help: ArgumentHelp(
            "Write to FILE, atomically (a temporary file in its directory, renamed over it).", valueName: "file"))
    var output: String?

    func validate() throws {
        try validateSocketOption(socket)
        if json, let format, format != .json { throw ValidationError("--json and --format \(format.rawValue) disagree") }
    }

    func run() async throws {
        let status: StatusMessage
        do {
            status = try await GestureClient.connect(to: socket) { client in try await client.status() }
        } catch let error as GestureClientError {
            printError("gestured status: \(error.advised)")
            throw ExitCode.failure
        }
        let text: String
        switch json ? .json : format ?? .text {
        case .text: text = StatusText.render(status) + "\n"
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            text = String(decoding: try encoder.encode(status), as: UTF8.self) + "\n"
        case .prometheus: text = MetricsExposition.render(status.metrics, format: .prometheus)
        case .openmetrics: text = MetricsExposition.render(status.metrics, format: .openMetrics)
        }
        guard let output else { return writeAll(1, text) }
        do {
            try AtomicFile.write(text, to: output)
        } catch {
            printError("gestured status: \(error)")
            throw ExitCode.failure
        }
    }
}

/// A file replaced whole: written to a temporary file in its directory (same file system), made
/// readable by all, then renamed over it.
enum AtomicFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func write(_ text: String, to path: String) throws(Failure) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        // A leading dot and no `.prom` ending: the textfile collector reads `*.prom` files only.
        var template = Array("\(directory)/.\(name).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Failure(description: "cannot create a file in \(directory): \(errorText())") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let reason = errorText()
                close(fd)
                unlink(temporary)
                throw Failure(description: "cannot write \(temporary): \(reason)")
            }
            written += n
        }
        let settled = fchmod(fd, 0o644) == 0 && fsync(fd) == 0
        let reason = settled ? "" : errorText()
        close(fd)
        guard settled else {
            unlink(temporary)
            throw Failure(description: "cannot write \(temporary): \(reason)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = errorText()
            unlink(temporary)
            throw Failure(description: "cannot rename \(temporary) to \(path): \(reason)")
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}

/// `gestured status`'s text: what an operator reads first. Each line is ``printable(_:)``: the
/// names in it are the panels', the files' and the pages' own.
enum StatusText {
    static func render(_ status: StatusMessage) -> String {
        let m = status.metrics
        let now = m.time
        var lines: [String] = []
        lines.append("gestured \(status.version), up \(duration(status.uptime)) (since \(time(m.startTime)))")

        let c = status.configuration
        let file = c.file ?? "the built-in configuration (no --config)"
        lines.append("configuration: \(file)")
        if let dropIns = c.dropIns { lines.append("  drop-ins: \(dropIns.joined(separator: ", "))") }
        lines.append("  loaded \(time(c.loaded)) (\(ago(c.loaded, now)))")
        if let failure = c.reloadFailure {
            lines.append("  last reload FAILED \(time(failure.time)) (\(ago(failure.time, now))); still running the one loaded \(time(c.loaded)):")
            for line in failure.error.split(separator: "\n", omittingEmptySubsequences: false) { lines.append("    \(line)") }
        }
        lines.append("  reloads: \(m.counts[.reloadsSucceeded]) succeeded, \(m.counts[.reloadsFailed]) failed")

        lines.append("panels: \(status.panels.isEmpty ? "none" : "\(status.panels.count)")")
        for p in status.panels {
            var text = "  \(p.label) \"\(p.name)\""
            if let w = p.widthMillimeters, let h = p.heightMillimeters {
                text += " \(MessagePrinter.fixed(w))×\(MessagePrinter.fixed(h)) mm"
            } else {
                text += " (size unknown)"
            }
            text += p.grabbed ? ", grabbed, mirror \(p.mirror ?? "(no node)")" : ", not grabbed"
            text += ", last touch " + (p.lastTouch.map { "\(time($0)) (\(ago($0, now)))" } ?? "never")
            lines.append(text)
        }

        lines.append("clients: \(status.clients.isEmpty ? "none" : "\(status.clients.count)")")
        for client in status.clients {
            switch client.transport {
            case .unix:
                let user = client.uid.map { uid in "uid \(uid)" + (client.user.map { " (\($0))" } ?? "") } ?? "user unknown"
                lines.append("  client \(client.client): unix socket, \(user)")
            case .websocket:
                lines.append("  client \(client.client): websocket, origin \(client.origin ?? "?")")
            }
        }

        lines.append("counters:")
        lines.append("  frames read \(m.counts[.framesRead]), touches \(m.counts[.touchesRead]), mirror frames \(m.counts[.mirrorFrames])")
        lines.append("  last touch " + (m.lastTouch.map { "\(time($0)) (\(ago($0, now)))" } ?? "never"))
        var byRecognizer: [String: UInt64] = [:]
        for g in m.gestures {
            byRecognizer[g.recognizer.isEmpty ? "(clients' \(g.kind))" : g.recognizer, default: 0] += g.count
        }
        let total = byRecognizer.values.reduce(0, +)
        let list = byRecognizer.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        lines.append("  gesture reports \(total)" + (list.isEmpty ? "" : ": \(list)"))
        let failures = m.failures.reduce(0) { $0 + $1.count }
        lines.append("  recognizer failures \(failures)")
        lines.append("  definitions \(m.counts[.definitionsAccepted]) accepted, \(m.counts[.definitionsRefused]) refused")
        for t in m.transports {
            lines.append(
                "  \(t.transport): \(t.connected) connected, \(t.accepted) accepted, \(t.refused) refused, "
                    + "\(t.messagesDropped) messages dropped, \(t.overflowed) overflowed")
        }
        lines.append("  input thread CPU \(MessagePrinter.fixed(m.inputThreadCPUSeconds)) s")
        return lines.map(printable).joined(separator: "\n")
    }

    /// A Unix time as UTC, to the second: `2026-11-27 10:12:01 UTC`.
    static func time(_ unix: Double) -> String {
        var seconds = time_t(unix.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }

    static func ago(_ then: Double, _ now: Double) -> String {
        "\(duration(max(0, now - then))) ago"
    }

    /// `45 s`, `12 min 3 s`, `5 h 2 min`, `3 d 4 h`.
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.down))
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        if s < 86400 { return "\(s / 3600) h \(s % 3600 / 60) min" }
        return "\(s / 86400) d \(s % 86400 / 3600) h"
    }
}
