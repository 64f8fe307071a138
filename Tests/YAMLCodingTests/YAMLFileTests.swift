import Foundation
import Glibc
import TestSupport
import Testing

@testable import YAMLCoding

/// Reading a file the commands take whole (the configuration, the actions file): size-capped by
/// the open file's own size before it is read, and never read past the cap.
@Suite("YAML files: read whole only when under their limit")
struct YAMLFileTests {
    static func directory() throws -> String {
        var template = Array("/tmp/gyamlfile.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        return String(cString: made)
    }

    /// Bytes this thread has asked `read(2)` for and got (`rchar` of /proc/thread-self/io): the
    /// call under test runs on this thread without suspending, so the difference is its reads.
    static func bytesReadByThisThread() throws -> Int {
        let text = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("rchar:") })
        return try #require(Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)))
    }

    static func error(_ body: () throws(YAMLFileError) -> [UInt8]) -> YAMLFileError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("a sparse file over the limit is refused at 1:1 with its size, none of it read")
    func sparseFileRefusedUnread() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/big.yaml"
        let size = 1 << 30
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(truncate(path, off_t(size)) == 0)
        let before = try Self.bytesReadByThisThread()
        let error = Self.error { () throws(YAMLFileError) in
            try YAMLFile.contents(of: path, limit: 4 << 20, kind: "a configuration file")
        }
        let read = try Self.bytesReadByThisThread() - before
        #expect(
            error
                == YAMLFileError(
                    file: path, line: 1, column: 1,
                    message: "the file is \(size) bytes: a configuration file is at most 4 MiB (4194304 bytes)"))
        #expect(read < 64 * 1024, "\(read) bytes read")
    }

    @Test("a file at the limit is read whole; one byte more is refused")
    func limitIsInclusive() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/a.yaml"
        let text = Array("a: 1\n".utf8)
        try Data(text).write(to: URL(fileURLWithPath: path))
        #expect(try YAMLFile.contents(of: path, limit: text.count, kind: "x") == text)
        let error = Self.error { () throws(YAMLFileError) in try YAMLFile.contents(of: path, limit: 4, kind: "a file") }
        #expect(error?.message == "the file is 5 bytes: a file is at most 4 bytes")
    }

    @Test("a FIFO, a device and a directory are refused without waiting or reading")
    func irregularFiles() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/fifo.yaml"
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, says) in [
            (fifo, "it is a named pipe (FIFO), not a regular file"),
            ("/dev/zero", "it is a character device, not a regular file"),
            (directory, "Is a directory"),
        ] {
            // A FIFO without a writer would block an open without O_NONBLOCK: this returns.
            let error = Self.error { () throws(YAMLFileError) in
                try YAMLFile.contents(of: path, limit: 1 << 20, kind: "x")
            }
            #expect(error == YAMLFileError(file: path, line: 1, column: 1, message: "cannot read the file: \(says)"))
        }
    }
}
