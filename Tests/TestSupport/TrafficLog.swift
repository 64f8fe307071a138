import Foundation
import Synchronization
import Testing

/// Every line the tests send and receive, to validate against docs/protocol.schema.json with
/// python3's jsonschema (the reference implementation, not a validator of our own).
public final class TrafficLog: Sendable {
    private struct Lines {
        var sent: Set<String> = []
        var received: Set<String> = []
        /// Client lines the schema must reject (bad input that is still JSON).
        var invalid: Set<String> = []
    }

    private let lines = Mutex(Lines())

    public init() {}

    /// A well-formed request a test sent.
    public func sent(_ line: String) { lines.withLock { _ = $0.sent.insert(line) } }
    /// A line the server sent.
    public func received(_ line: String) { lines.withLock { _ = $0.received.insert(line) } }
    /// A bad request the schema must refuse as well as the server.
    public func mustBeInvalid(_ line: String) { lines.withLock { _ = $0.invalid.insert(line) } }

    public var receivedCount: Int { lines.withLock { $0.received.count } }

    /// Validates everything recorded; records an issue per failing line.
    public func validate(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let snapshot = lines.withLock { $0 }
        try SchemaValidator.validate(
            sent: snapshot.sent.sorted(), received: snapshot.received.sorted(), invalid: snapshot.invalid.sorted(),
            sourceLocation: sourceLocation)
    }
}

public enum SchemaValidator {
    public static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    public static let schemaPath = repositoryRoot.appendingPathComponent("docs/protocol.schema.json").path

    private static let script = """
        import json, sys
        import jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        def validator(name):
            return jsonschema.Draft202012Validator({"$ref": "#/$defs/" + name, "$defs": schema["$defs"]})
        client, server = validator("clientMessage"), validator("serverMessage")
        failures = 0
        def check(path, v, want_valid, what):
            global failures
            for line in open(path, encoding="utf-8"):
                line = line.rstrip("\\n")
                errors = list(v.iter_errors(json.loads(line)))
                if want_valid and errors:
                    failures += 1
                    best = jsonschema.exceptions.best_match(errors)
                    print(f"{what} fails the schema: {line}\\n  {best.json_path}: {best.message}")
                elif not want_valid and not errors:
                    failures += 1
                    print(f"{what} should fail the schema but passes: {line}")
        check(sys.argv[2], client, True, "client message")
        check(sys.argv[3], server, True, "server message")
        check(sys.argv[4], client, False, "bad client message")
        sys.exit(1 if failures else 0)
        """

    public static func validate(
        sent: [String], received: [String], invalid: [String], sourceLocation: SourceLocation
    ) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gestured-schema-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ lines: [String]) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: url)
            return url.path
        }
        let arguments = [
            "python3", "-c", script, schemaPath, try file("sent", sent), try file("received", received),
            try file("invalid", invalid),
        ]
        let (status, output) = try run(arguments)
        #expect(status == 0, "schema validation failed:\n\(output)", sourceLocation: sourceLocation)
    }

    /// Runs a command to completion; its exit status and its stdout and stderr together.
    public static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> (Int32, String) {
        let (status, output) = try Spawn.run(arguments, environment: environment ?? Spawn.environment())
        return (status, String(decoding: output, as: UTF8.self))
    }
}
