import Logging

/// A log handler that keeps every record, so tests can check what the daemon and its parts log.
public struct LogCapture: LogHandler {
    public struct Record: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]
    }

    public let records: Observed<[Record]>
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(records: Observed<[Record]>) {
        self.records = records
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let record = Record(
            level: event.level, message: event.message.description, metadata: merged.mapValues { "\($0)" })
        records.update { $0.append(record) }
    }

    /// A logger writing into `records`.
    public static func logger(into records: Observed<[Record]>) -> Logger {
        Logger(label: "gestured.test.capture") { _ in LogCapture(records: records) }
    }
}
