/// A problem in a file, located. Prints as `FILE:LINE:COLUMN: message`, the form compilers use,
/// so editors and CI logs link straight to it. The daemon's configuration
/// (`ConfigurationFileError`) and `gestured actions`' file (`ActionsFileError`) report with it.
public struct YAMLFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `message` at `mark` in `file`.
    public init(file: String, at mark: YAMLMark, _ message: String) {
        self.init(file: file, line: mark.line, column: mark.column, message: message)
    }

    public var description: String { "\(file):\(line):\(column): \(message)" }
}

/// Reading a YAML file whose top level is a mapping, each problem located in the file: what the
/// daemon's configuration and the actions file have in common.
public enum YAMLFile {
    /// The file's document from its `bytes`, nil when it has none (empty, or only comments).
    /// Bytes that are not UTF-8, a YAML syntax error, or a top level that is not a mapping (then
    /// `expecting` says what the file should hold) throw, at their position in `file`.
    public static func mapping(
        _ bytes: some Collection<UInt8>, file: String, expecting: String
    ) throws(YAMLFileError) -> YAMLNode? {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw YAMLFileError(file: file, at: YAMLMark(ofFirstInvalidUTF8In: bytes), "the file is not valid UTF-8")
        }
        let parsed: YAMLNode?
        do {
            parsed = try YAMLNode.parse(text)
        } catch {
            throw YAMLFileError(file: file, at: error.mark, error.message)
        }
        if let parsed, parsed.mapping == nil { throw YAMLFileError(file: file, at: parsed.mark, expecting) }
        return parsed
    }

    /// `T` decoded from the document `root` of `file`, an error at the node its coding path names
    /// (``YAMLNode/locate(_:)``).
    public static func decode<T: Decodable>(
        _ type: T.Type, from root: YAMLNode, file: String
    ) throws(YAMLFileError) -> T {
        do {
            return try YAMLDecoder().decode(type, from: root)
        } catch let error as DecodingError {
            let found = root.locate(error)
            throw YAMLFileError(file: file, at: found.mark, found.message)
        } catch {
            throw YAMLFileError(file: file, at: root.mark, "\(error)")
        }
    }
}
