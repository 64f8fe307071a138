import Glibc

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

    /// `message` at `mark`, in the file the mark names (a drop-in's), else in `file`.
    public init(file: String, at mark: YAMLMark, _ message: String) {
        self.init(file: mark.file ?? file, line: mark.line, column: mark.column, message: message)
    }

    public var description: String { "\(file):\(line):\(column): \(message)" }
}

/// Reading a YAML file whose top level is a mapping, each problem located in the file: what the
/// daemon's configuration and the actions file have in common.
public enum YAMLFile {
    /// The bytes of the regular file at `path`, or why not (at 1:1): the system's reason, what the
    /// file is when it is not a regular file (a FIFO would block the read, a device such as
    /// `/dev/zero` never end), or that it is larger than `limit` bytes. The size is the open
    /// file's own (`fstat`), so a file over the limit — a sparse 1 GB file included — is refused
    /// before a byte of it is read; a file that grows while it is read stops being read at
    /// `limit + 1` bytes. `kind` names the file in that error ("a configuration file"). A
    /// `dropIn` is refused, before it is read, unless only its owner may write it
    /// (``DropInTrust``).
    public static func contents(
        of path: String, limit: Int, kind: String, dropIn: Bool = false
    ) throws(YAMLFileError) -> [UInt8] {
        func failure(_ message: String) -> YAMLFileError {
            YAMLFileError(file: path, line: 1, column: 1, message: message)
        }
        // O_NONBLOCK: opening a FIFO does not wait for a writer (it is refused below).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw failure("cannot read the file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("cannot read the file: \(String(cString: strerror(errno)))") }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw failure("cannot read the file: \(String(cString: strerror(EISDIR)))")
        case S_IFIFO: throw failure("cannot read the file: it is a named pipe (FIFO), not a regular file")
        case S_IFCHR: throw failure("cannot read the file: it is a character device, not a regular file")
        case S_IFBLK: throw failure("cannot read the file: it is a block device, not a regular file")
        case S_IFSOCK: throw failure("cannot read the file: it is a socket, not a regular file")
        default: throw failure("cannot read the file: it is an unknown kind of file, not a regular file")
        }
        if dropIn, let problem = DropInTrust.problem(ofOpen: fd, kind: .file) { throw failure(problem) }
        try checkSize(Int(info.st_size), limit: limit, kind: kind, file: path)
        // Room for the size `fstat` gave and one byte more, to tell a file that grew since; it
        // grows up to one byte more than the limit.
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while count <= limit {
            if count == bytes.count {
                bytes.append(contentsOf: repeatElement(0, count: min(max(bytes.count, 4096), limit + 1 - bytes.count)))
            }
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw failure("cannot read the file: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { throw tooLarge(path, "more than \(limit)", limit: limit, kind: kind) }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Refuses (at 1:1 of `file`) a file of `size` bytes when that is over `limit`: text read
    /// another way than ``contents(of:limit:kind:)`` (a pipe, a test) is held to the same limit.
    public static func checkSize(_ size: Int, limit: Int, kind: String, file: String) throws(YAMLFileError) {
        guard size > limit else { return }
        throw tooLarge(file, "\(size)", limit: limit, kind: kind)
    }

    private static func tooLarge(_ file: String, _ size: String, limit: Int, kind: String) -> YAMLFileError {
        YAMLFileError(
            file: file, line: 1, column: 1,
            message: "the file is \(size) bytes: \(kind) is at most \(describe(bytes: limit))")
    }

    /// A byte count as the documentation writes limits: `4 MiB`, `512 KiB`, else bytes.
    public static func describe(bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB (\(bytes) bytes)" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB (\(bytes) bytes)" }
        return "\(bytes) bytes"
    }

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
