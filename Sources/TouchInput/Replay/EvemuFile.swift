import Glibc

/// Reading an evemu file from disk (or a pipe): in blocks, with the line limit applied as the
/// bytes come in, so a file that is one endless line (`/dev/zero`, 50 MB without a newline) is
/// refused after ``EvemuRecording/maximumLineLength`` bytes instead of being read whole first;
/// the bytes read are the recording's own, held once.
public enum EvemuFile {
    /// Why a file could not be read or parsed.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// `open` or `read` failed: the system's reason.
        case unreadable(String)
        /// A line of the file is wrong (too long, or the parser's error).
        case line(LineError)

        public var description: String {
            switch self {
            case .unreadable(let reason): "cannot read the file: \(reason)"
            case .line(let error): "\(error)"
            }
        }
    }

    /// Bytes asked of each `read`.
    static let blockSize = 64 * 1024

    /// The recording (or device description) at `path`.
    public static func recording(at path: String) throws(Failure) -> EvemuRecording {
        let bytes = try read(path)
        do {
            return try EvemuRecording(bytes: bytes)
        } catch {
            throw .line(error)
        }
    }

    /// The bytes at `path`, every line at most ``EvemuRecording/maximumLineLength`` bytes long.
    static func read(_ path: String) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var info = stat()
        if fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG {
            bytes.reserveCapacity(Int(info.st_size) + blockSize)
        }
        var line = 1
        var lineLength = 0
        while true {
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: blockSize))
            let count = bytes.withUnsafeMutableBufferPointer { buffer in
                Glibc.read(fd, buffer.baseAddress! + start, blockSize)
            }
            if count < 0 {
                if errno == EINTR {
                    bytes.removeLast(blockSize)
                    continue
                }
                throw .unreadable(String(cString: strerror(errno)))
            }
            bytes.removeLast(blockSize - count)
            if count == 0 { return bytes }
            for i in start..<bytes.count {
                if bytes[i] == 0x0A {
                    line += 1
                    lineLength = 0
                } else {
                    lineLength += 1
                    if lineLength > EvemuRecording.maximumLineLength {
                        throw .line(LineError(line: line, "line longer than \(EvemuRecording.maximumLineLength) bytes"))
                    }
                }
            }
        }
    }
}
