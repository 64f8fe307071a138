import Logging
import TestSupport

/// A log handler that keeps every record, so tests can check what the server logs.
struct LogCapture: LogHandler {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    let records: Observed<[Record]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let record = Record(
            level: event.level, message: event.message.description, metadata: merged.mapValues { "\($0)" })
        records.update { $0.append(record) }
    }

    /// A logger writing into `records`.
    static func logger(into records: Observed<[Record]>) -> Logger {
        Logger(label: "gestured.test.capture") { _ in LogCapture(records: records) }
    }
}
