import EvdevValues
import Glibc
import YAMLCoding

/// Reading a recording from disk (or a pipe), in either format: an evemu file, or a
/// `libinput record` file (told apart by ``LibinputRecording/looksLikeLibinput(_:)``), of which
/// one device is chosen (``LibinputRecording/device(named:)``).
///
/// The file is read in blocks with a line limit applied as the bytes come in, so a file that is
/// one endless line (`/dev/zero`, 50 MB without a newline) is refused after its first line's worth
/// instead of being read whole: ``EvemuRecording/maximumLineLength`` for evemu files,
/// ``LibinputRecording/maximumLineLength`` for YAML (the format is decided on the first block).
/// The size is capped too (``maximumFileSize``): a regular file over it (a sparse 1 GB file) is
/// refused by its size before a byte is read, a pipe once it has given that many bytes. The bytes
/// are held once.
public enum RecordingFile {
    /// Why a file could not be read, parsed, or gave no device to replay.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// `open` or `read` failed: the system's reason.
        case unreadable(String)
        /// A line of an evemu file is wrong (too long, or the parser's error).
        case line(LineError)
        /// A libinput recording is wrong at this line and column.
        case yaml(YAMLError)
        /// The recording holds no device to replay, or not the one asked for.
        case device(String)
        /// The file has more than `limit` bytes: `size` of them (nil when it is a pipe, or grew
        /// while it was read, and was read up to the limit only).
        case tooLarge(size: Int?, limit: Int)

        /// `line 3: …` and `12:5: …`: the file's name goes in front.
        public var description: String {
            switch self {
            case .unreadable(let reason): "cannot read the file: \(reason)"
            case .line(let error): "\(error)"
            case .yaml(let error): "\(error)"
            case .device(let message): message
            case .tooLarge(let size, let limit):
                "the file is \(size.map { "\($0)" } ?? "more than \(limit)") bytes, over the limit of "
                    + (limit % (1 << 20) == 0 ? "\(limit >> 20) MiB (\(limit) bytes)" : "\(limit) bytes")
            }
        }

        /// The message with the file's name in front, as compilers write it: `FILE: line 3: …`
        /// for evemu files (as ever), `FILE:12:5: …` for YAML.
        public func located(in file: String) -> String {
            switch self {
            case .yaml(let error): "\(file):\(error.mark.line):\(error.mark.column): \(error.message)"
            default: "\(file): \(self)"
            }
        }
    }

    /// The recording at `path`: an evemu file's device, or a libinput recording's `device` (its
    /// node or name), by default its touchscreen.
    public static func recording(at path: String, device: String? = nil) throws(Failure) -> Recording {
        try recording(bytes: try read(path), device: device)
    }

    /// The recording in `bytes` (see ``recording(at:device:)``).
    public static func recording(bytes: [UInt8], device: String? = nil) throws(Failure) -> Recording {
        if LibinputRecording.looksLikeLibinput(bytes) {
            let file: LibinputRecording
            do {
                file = try LibinputRecording(bytes: bytes)
            } catch {
                throw .yaml(error)
            }
            return Recording(try file.device(named: device))
        }
        let evemu: EvemuRecording
        do {
            evemu = try EvemuRecording(bytes: bytes)
        } catch {
            throw .line(error)
        }
        if let device, device != evemu.description.name {
            throw .device(
                "the recording is of \"\(evemu.description.name)\", not '\(device)' (an evemu file holds one device)")
        }
        return Recording(evemu)
    }

    /// Bytes asked of each `read`.
    static let blockSize = 64 * 1024

    /// The most bytes a recording may have (docs/INPUT.md, "Recordings"): it is held in memory
    /// while it plays, and an hour of ten fingers on a 120 Hz panel is about a quarter of it.
    public static let maximumFileSize = 256 << 20

    /// The most bytes a `libinput record` file may have: its YAML takes about five times the
    /// bytes of evemu's lines for the same events and is parsed token by token, so at the evemu
    /// limit a replay took a minute and 347 MB before its first frame; at this one it holds
    /// 105 MB, and its time, in proportion to the bytes, is a quarter. Minutes of ten fingers,
    /// half an hour of one (docs/INPUT.md).
    public static let maximumLibinputFileSize = 64 << 20

    /// The bytes at `path`, every line within its format's limit and at most `limit` in all (at
    /// most ``maximumLibinputFileSize`` for a `libinput record` file).
    static func read(_ path: String, limit: Int = maximumFileSize) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var limit = limit
        var info = stat()
        var size: Int?
        if fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG {
            size = Int(info.st_size)
            guard Int(info.st_size) <= limit else { throw .tooLarge(size: Int(info.st_size), limit: limit) }
        }
        // Each block is read into a buffer of its own and appended to the bytes (a copy): read
        // straight into the array, its new bytes would first have to be zeroed.
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { block.deallocate() }
        let base = block.baseAddress!
        var line = 1
        var lineLength = 0
        var lineLimit: Int?
        while true {
            let count = Glibc.read(fd, base, blockSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(String(cString: strerror(errno)))
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: base, count: count))
            guard bytes.count <= limit else { throw .tooLarge(size: nil, limit: limit) }
            let maximum: Int
            if let lineLimit {
                maximum = lineLimit
            } else {
                // The first block tells the format, and with it the limits.
                let libinput = LibinputRecording.looksLikeLibinput(bytes)
                maximum = libinput ? LibinputRecording.maximumLineLength : EvemuRecording.maximumLineLength
                lineLimit = maximum
                if libinput { limit = min(limit, maximumLibinputFileSize) }
                if let size {
                    guard size <= limit else { throw .tooLarge(size: size, limit: limit) }
                    bytes.reserveCapacity(size)
                }
                guard bytes.count <= limit else { throw .tooLarge(size: nil, limit: limit) }
            }
            // Line by line through memchr: a few instructions a line rather than several a byte.
            var offset = 0
            while offset < count {
                let rest = count - offset
                let length = memchr(base + offset, 0x0A, rest).map { (base + offset).distance(to: $0) } ?? rest
                lineLength += length
                if lineLength > maximum {
                    let message = "line longer than \(maximum) bytes"
                    throw maximum == EvemuRecording.maximumLineLength
                        ? .line(LineError(line: line, message))
                        : .yaml(YAMLError(message, at: YAMLMark(line: line, column: maximum + 1)))
                }
                offset += length
                if offset < count {
                    // The newline.
                    line += 1
                    lineLength = 0
                    offset += 1
                }
            }
        }
    }
}
