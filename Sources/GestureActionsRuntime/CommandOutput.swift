/// A command's output cut into journal lines, with no I/O: bytes in, lines out. A line longer than
/// ``lineBytes`` is logged cut, saying how long it was, rather than failing the command's reading
/// (swift-subprocess's line reader throws past its limit, which was logged as "command could not
/// start" although the command ran). Whether each line is logged is the caller's choice
/// (``CommandRunner``'s caps); this counts what it is given.
struct CommandOutput {
    /// The most bytes of one line logged; the rest is cut.
    static let lineBytes = 2048

    /// The current line's first ``lineBytes`` bytes.
    private var line: [UInt8] = []
    /// The current line's length, cut bytes included.
    private var length = 0
    /// The lines ended so far.
    private(set) var lines = 0

    init() {
        line.reserveCapacity(Self.lineBytes)
    }

    /// Takes the next `bytes` of the output; `emit` gets each line they end (without its newline
    /// or a carriage return before it).
    mutating func take(_ bytes: UnsafeRawBufferPointer, _ emit: (String) -> Void) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                emit(finishLine())
            } else {
                if line.count < Self.lineBytes { line.append(byte) }
                length += 1
            }
        }
    }

    /// The output ended: its last line, if it had no newline.
    mutating func finish(_ emit: (String) -> Void) {
        if length > 0 { emit(finishLine()) }
    }

    private mutating func finishLine() -> String {
        lines += 1
        defer {
            line.removeAll(keepingCapacity: true)
            length = 0
        }
        if length <= Self.lineBytes {
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            return String(decoding: line, as: UTF8.self)
        }
        return String(decoding: line, as: UTF8.self) + "… (cut: the line has \(length) bytes)"
    }
}
