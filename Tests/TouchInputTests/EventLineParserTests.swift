import TestSupport
import Testing

@testable import TouchInput

/// The evemu `E:` line parser's short path (``EventLineParser/parseRecorded(_:from:repeats:)``, the lines
/// evemu-record writes) reads what the general path reads, and leaves every other line to it.
@Suite struct EventLineParserTests {
    /// A line as evemu-record writes it, or one changed in a way the format may or may not allow.
    struct Lines {
        var rng: SplitMix64

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
        mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }

        mutating func recorded() -> String {
            let seconds = [0, 1, 9, 12, 1234, 999_999_999_999][int(0...5)] + (chance(0.5) ? int(0...99) : 0)
            let micros = int(0...999_999)
            let type = [0, 1, 3, 3, 3, 4, 0x1f, 0x20][int(0...7)]
            let code = [0, 0x2f, 0x35, 0x36, 0x39, 0x14a, 0x2ff, 0x300, 0xffff][int(0...8)]
            let value = [0, 1, -1, 9830, 65535, Int(Int32.max), Int(Int32.min), Int(Int32.max) + 1, -99_999_999_999][
                int(0...8)]
            func hex(_ v: Int) -> String {
                let digits = String(v, radix: 16, uppercase: chance(0.1))
                return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
            }
            let fraction = String(micros)
            return "E: \(seconds).\(String(repeating: "0", count: 6 - fraction.count) + fraction) \(hex(type)) "
                + "\(hex(code)) \(value)"
        }

        /// A recorded line, changed at random: other spacing, digits, signs, comments, endings.
        mutating func line() -> String {
            var line = recorded()
            let changes: [(inout String, inout Lines) -> Void] = [
                { l, _ in l = l.replacingOccurrences(of: " ", with: "  ") },
                { l, _ in l = l.replacingOccurrences(of: " ", with: "\t") },
                { l, _ in l = " " + l },
                { l, _ in l += " " },
                { l, _ in l += " # note" },
                { l, _ in l += "\r" },
                { l, r in l.insert("7", at: l.index(l.startIndex, offsetBy: r.int(3...l.count - 1))) },
                { l, r in l.remove(at: l.index(l.startIndex, offsetBy: r.int(3...l.count - 1))) },
                { l, _ in l = l.replacingOccurrences(of: ".", with: ".0") },
                { l, _ in l = l.replacingOccurrences(of: " -", with: " +") },
                { l, r in l = l.replacingOccurrences(of: "E:", with: ["e:", "E;", "E", "#E:"][r.int(0...3)]) },
            ]
            for _ in 0..<(chance(0.5) ? 0 : int(1...2)) {
                changes[int(0...changes.count - 1)](&line, &self)
            }
            return line
        }
    }

    static func general(_ text: String) -> EventLineParser.Result {
        Array(text.utf8).withUnsafeBufferPointer { EventLineParser.parseAny($0, from: 0) }
    }

    /// The short path's reading, as the general path would return it.
    static func recorded(_ text: String) -> EventLineParser.Result? {
        var repeats = EventLineParser.Repeats()
        return Array(text.utf8).withUnsafeBufferPointer {
            EventLineParser.parseRecorded($0, from: 0, repeats: &repeats).map { .event($0.0, next: $0.next) }
        }
    }

    @Test func `the short path reads a recorded line as the general path does, and takes every one it can`() {
        var lines = Lines(rng: SplitMix64(seed: 0x6576_656d_755f_4521))
        var taken = 0
        for _ in 0..<20_000 {
            let line = lines.line()
            for text in [line, line + "\n", line + "\nE: 1.000000 0000 0000 0\n"] {
                let general = Self.general(text)
                guard case .event(let event, let next)? = Self.recorded(text) else { continue }
                taken += 1
                guard case .event(let expected, let expectedNext) = general, expected == event, expectedNext == next
                else {
                    Issue.record("\(text.debugDescription): short path \(event) next \(next), general \(general)")
                    return
                }
            }
        }
        // About half the lines are unchanged, and some of those out of range.
        #expect(taken > 5_000, "the short path took only \(taken) lines")
    }

    @Test func `every line evemu-record writes goes the short way`() {
        var lines = Lines(rng: SplitMix64(seed: 7))
        for _ in 0..<2_000 {
            let line = lines.recorded() + "\n"
            guard case .event = Self.general(line) else { continue }
            #expect(Self.recorded(line) != nil, "\(line.debugDescription)")
        }
    }

    /// Every byte value in every place of a field the short path reads a word at a time (the
    /// seconds, the fraction, the type, the code, the value): wherever it takes the line, it reads
    /// what the general path reads; a digit where a decimal digit was, it still takes.
    @Test func `the short path reads fields a word at a time as the general path reads them a byte at a time`() {
        let line = "E: 1234.567890 0003 0035 -1234567\nE: 1.000000 0000 0000 0\n"
        let fields = [3...6, 8...13, 15...18, 20...23, 26...32]
        let decimal = [true, true, false, false, true]
        for (field, isDecimal) in zip(fields, decimal) {
            for place in field {
                for byte in 0...255 {
                    var bytes = Array(line.utf8)
                    bytes[place] = UInt8(byte)
                    let general = bytes.withUnsafeBufferPointer { EventLineParser.parseAny($0, from: 0) }
                    var repeats = EventLineParser.Repeats()
                    let recorded = bytes.withUnsafeBufferPointer {
                        EventLineParser.parseRecorded($0, from: 0, repeats: &repeats).map {
                            EventLineParser.Result.event($0.0, next: $0.next)
                        }
                    }
                    let text = String(decoding: bytes.prefix(34), as: UTF8.self).debugDescription
                    if case .event(let event, let next)? = recorded {
                        guard case .event(let expected, let expectedNext) = general, expected == event,
                            expectedNext == next
                        else {
                            Issue.record("\(text): short path \(event) next \(next), general \(general)")
                            return
                        }
                    } else if isDecimal && (0x30...0x39).contains(byte) {
                        Issue.record("\(text): a digit where a digit was, but the short path left the line")
                        return
                    }
                }
            }
        }
    }

    /// Lines read one after the other, as a recording is, each repeating the timestamp, the type
    /// and code, or both of the line before it, byte for byte or but for one byte: the short path
    /// reads each (with what it kept of the line before) as the general path reads it alone.
    @Test func `the short path reads repeated timestamps and fields as the general path does`() {
        let seed = UInt64.random(in: 1...UInt64.max)
        var lines = Lines(rng: SplitMix64(seed: seed))
        var text = ""
        var previous = lines.recorded()
        for _ in 0..<20_000 {
            var line = lines.chance(0.5) ? lines.recorded() : lines.line()
            // "E: " + timestamp + " ": up to the second space; the fields: the next ten bytes.
            let parts = previous.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
            let own = line.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
            if parts.count == 5 && own.count == 5 {
                var fields = own
                if lines.chance(0.6) { fields[1] = parts[1] }
                if lines.chance(0.6) { fields[2] = parts[2]; fields[3] = parts[3] }
                line = fields.joined(separator: " ")
                if lines.chance(0.1) {
                    var bytes = Array(line.utf8)
                    bytes[lines.int(0...bytes.count - 1)] = [0x30, 0x31, 0x39, 0x41, 0x61, 0x20, 0x0A][lines.int(0...6)]
                    line = String(decoding: bytes, as: UTF8.self)
                }
            }
            text += line + "\n"
            previous = line
        }
        let bytes = Array(text.utf8)
        var repeats = EventLineParser.Repeats()
        var offset = 0
        var taken = 0
        bytes.withUnsafeBufferPointer { b in
            while offset < b.count {
                let general = EventLineParser.parseAny(b, from: offset)
                let end = b[offset...].firstIndex(of: 0x0A).map { $0 + 1 } ?? b.count
                if let (event, next) = EventLineParser.parseRecorded(b, from: offset, repeats: &repeats) {
                    taken += 1
                    guard case .event(let expected, let expectedNext) = general, expected == event, expectedNext == next
                    else {
                        let line = String(decoding: b[offset..<end], as: UTF8.self).debugDescription
                        Issue.record("seed \(seed): \(line): short path \(event) next \(next), general \(general)")
                        return
                    }
                }
                offset = end
            }
        }
        // Half the lines are made as recorded, a quarter more changed in ways the short path still
        // takes, and many of those are out of range: it takes about one in five.
        #expect(taken > 3_000, "seed \(seed): the short path took only \(taken) lines")
    }
}
