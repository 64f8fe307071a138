/// Random damage to an evemu recording, as a fuzzer would do it: bytes flipped, inserted and
/// cut, evemu tokens and big numbers spliced in, the file cut short, chunks repeated elsewhere
/// (events out of order), digits changed. Shared by the parser's fuzzing (`EvemuFuzzTests`) and
/// the daemon's (`ReplayFuzzTests`, through `gestured run --replay`).
public enum RecordingMutation {
    public static let tokens: [[UInt8]] = [
        "E: ", "A: ", "B: 03 ", "P: ", "N: ", "I: ", "# ", "\n", "\r\n", "-", "+", ".", "0x", "ff", "2f", "39",
        "4294967296", "-2147483648", "99999999999999", " 0003 002f ", " 0003 0039 -1", " 0000 0000 0", " 0000 0003 0",
        " 0000 0002 0", " 0003 0037 2",
    ].map { Array($0.utf8) }

    /// The same for a `libinput record` file (YAML): its structure's tokens and absurd numbers.
    public static let yamlTokens: [[UInt8]] = [
        "- ", ": ", "[", "]", "{", "}", ", ", "\n", "\n  ", "\n    - ", "#", "&a ", "*a", "!!str ", "---\n", "'", "\"",
        "~", "-1", "4294967296", "-2147483649", "999999999999999", "0x7fffffff", "1e9", ".nan", "evdev: ",
        "events: ", "absinfo: ", "codes: ", "3: [53, 54, 57]", "[0, 0, 3, 57, -1]", "[0, 0, 0, 0, 0]",
        "[9, 999999, 3, 53, 2147483647]", "53: [0, -5, 0, 0, 0]", "devices: ", "version: 1",
    ].map { Array($0.utf8) }

    /// `input` with one to four random mutations, splicing in `tokens`.
    public static func mutate(_ input: [UInt8], _ rng: inout SplitMix64, tokens: [[UInt8]] = tokens) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + Int(rng.next() % 4)) {
            let at = bytes.isEmpty ? 0 : Int(rng.next() % UInt64(bytes.count))
            switch rng.next() % 7 {
            case 0 where !bytes.isEmpty: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            case 1: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: at)
            case 2 where !bytes.isEmpty: bytes.removeSubrange(at..<min(bytes.count, at + 1 + Int(rng.next() % 64)))
            case 3: bytes.insert(contentsOf: tokens[Int(rng.next() % UInt64(tokens.count))], at: at)
            case 4: bytes = Array(bytes.prefix(at))
            case 5 where !bytes.isEmpty:
                // Duplicate a chunk elsewhere (repeated lines, events out of order).
                let length = min(bytes.count - at, 1 + Int(rng.next() % 200))
                let chunk = Array(bytes[at..<at + length])
                bytes.insert(contentsOf: chunk, at: Int(rng.next() % UInt64(bytes.count)))
            default:
                if !bytes.isEmpty,
                    let digit = bytes.indices.dropFirst(at).first(where: { bytes[$0] >= 0x30 && bytes[$0] <= 0x39 })
                {
                    bytes[digit] = 0x30 + UInt8(rng.next() % 10)
                }
            }
        }
        return bytes
    }
}
