import Foundation
import Glibc
import Testing

@testable import TouchInput

/// Reading recordings (and scripts) from files and pipes: in blocks, capped in size — a regular
/// file by its size before it is read, a pipe as the bytes come in.
@Suite struct RecordingFileTests {
    static func directory() throws -> String {
        var template = Array("/tmp/gevemufile.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        return String(cString: made)
    }

    /// `rchar` of /proc/thread-self/io: the bytes this thread's reads returned.
    static func bytesReadByThisThread() throws -> Int {
        let text = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("rchar:") })
        return try #require(Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)))
    }

    static func failure(_ path: String, limit: Int) -> RecordingFile.Failure? {
        do {
            _ = try RecordingFile.read(path, limit: limit)
            return nil
        } catch {
            return error
        }
    }

    @Test("a sparse recording over the limit is refused by its size, none of it read")
    func sparseFile() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/big.evemu"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(truncate(path, 1 << 30) == 0)
        let before = try Self.bytesReadByThisThread()
        let failure = Self.failure(path, limit: RecordingFile.maximumFileSize)
        let read = try Self.bytesReadByThisThread() - before
        #expect(failure == .tooLarge(size: 1 << 30, limit: RecordingFile.maximumFileSize))
        #expect(read < 64 * 1024, "\(read) bytes read")
        #expect(
            failure?.description == "the file is 1073741824 bytes, over the limit of 256 MiB (268435456 bytes)")
    }

    /// A pipe has no size to look at: one that never ends (valid lines, so the line limit never
    /// stops it) is read up to the limit and refused there, not read until memory runs out.
    @Test("a pipe that never ends is refused once it passes the limit")
    func endlessPipe() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/endless.evemu"
        #expect(mkfifo(fifo, 0o600) == 0)
        let limit = 1 << 20
        // The writer: comment lines until the reader closes its end (EPIPE ends the loop).
        let writer = Thread {
            let fd = open(fifo, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { close(fd) }
            let line = Array("# a comment line, as a recording may have anywhere\n".utf8)
            while line.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        }
        signal(SIGPIPE, SIG_IGN)
        writer.start()
        let failure = Self.failure(fifo, limit: limit)
        #expect(failure == .tooLarge(size: nil, limit: limit))
        #expect(failure?.description == "the file is more than 1048576 bytes, over the limit of 1 MiB (1048576 bytes)")
    }

    @Test("a file at the limit is read; one byte more is refused")
    func limitIsInclusive() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/small.evemu"
        let bytes = Array("# x\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try RecordingFile.read(path, limit: 4) == bytes)
        #expect(Self.failure(path, limit: 3) == .tooLarge(size: 4, limit: 3))
    }

    /// Lines are measured as the blocks come in: a line that starts in one block and ends in the
    /// next counts all its bytes.
    @Test("a line of the limit across two blocks is read; one byte longer is refused at its line")
    func lineLimitAcrossBlocks() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let limit = EvemuRecording.maximumLineLength
        let short = "# " + String(repeating: "x", count: 97) + "\n"
        // The long line starts 50 to 149 bytes before the first block ends.
        let before = (RecordingFile.blockSize - 149) / short.utf8.count
        for extra in [0, 1] {
            let text =
                String(repeating: short, count: before) + "# " + String(repeating: "y", count: limit - 2 + extra)
                + "\n" + short
            let path = directory + "/long\(extra).evemu"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            if extra == 0 {
                #expect(try RecordingFile.read(path) == Array(text.utf8))
            } else {
                #expect(
                    Self.failure(path, limit: RecordingFile.maximumFileSize)
                        == .line(LineError(line: before + 1, "line longer than \(limit) bytes")))
            }
        }
    }
}
