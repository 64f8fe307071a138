import Foundation
import GestureEngine
import TestSupport
import Testing

@testable import GestureDaemon

/// Mutated configuration files through the whole loader (libyaml, the node tree, the decoder, the
/// definitions' checks): no crash; every refusal names a real line and column with a message that
/// says something; every accepted file prints as YAML that loads back to the same configuration.
/// CI runs 10 000 inputs; `GESTURED_FUZZ_ITERATIONS` runs more (docs/TESTING.md).
@Suite struct ConfigurationFuzzTests {
    static var iterations: Int {
        ProcessInfo.processInfo.environment["GESTURED_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 10_000
    }

    static func seeds() throws -> [[UInt8]] {
        let repository = DaemonProcessTests.repository
        return [
            Array(try Data(contentsOf: repository.appendingPathComponent("examples/gestured.yaml"))),
            Array(try Data(contentsOf: ConfigCommandTests.golden)),
            Array(
                """
                socket: {path: '/run/g.sock', mode: "0600", max-clients: 0x10}
                devices:
                  - {match: {usb: "0eef:72a1"}, size-mm: {width: 344, height: 194}, calibration: [1, 0, 0, 0, 1, 0]}
                regions:
                  - &r {name: r, rect: {x: 0.5, y: 0, width: 0.5, height: 1}, z: 2}
                recognizers:
                  - &t {name: t, kind: tap, region: r, when: {min-fingers: 1, start-in: {x: 0, y: 0, width: 1, height: 1}}}
                  - <<: *t
                    name: d
                    taps: 2
                  - name: c
                    kind: shape
                    templates: [circle, {name: v, points: [[0, 0], [0.5, 1], [1, 0]]}]
                    accepts: {tools: [finger, pen], max-contact-size-mm: 12.5}
                  - name: s
                    kind: swipe
                    directions: [up, down-left]
                    simultaneous-with: ["*"]
                    region: >-
                      r
                """.utf8),
        ]
    }

    static let tokens: [[UInt8]] = [
        ": ", "- ", "[", "]", "{", "}", ", ", "&a ", "*a", "<<: ", "!!str ", "!!int ", "'", "\"", "|\n", ">-\n",
        "# ", "\n", "  ", "\t", "---\n", "...\n", "~", "null", "yes", "0x1F", "1e309", "-1", ".inf", "0660",
        "recognizers:\n", "kind: ", "tap", "pan", "name: x", "requires-failure-of: [", "region: ", "?", "%YAML 1.1\n",
        "\u{FEFF}", "é", "\u{0}", "\\u0000", "\r\n",
    ].map { Array($0.utf8) }

    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + Int(rng.next() % 4)) {
            let at = bytes.isEmpty ? 0 : Int(rng.next() % UInt64(bytes.count))
            switch rng.next() % 6 {
            case 0 where !bytes.isEmpty: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            case 1 where !bytes.isEmpty: bytes.removeSubrange(at..<min(bytes.count, at + 1 + Int(rng.next() % 40)))
            case 2: bytes = Array(bytes.prefix(at))
            case 3 where !bytes.isEmpty:
                // A chunk again elsewhere: repeated keys, entries, indentation gone wrong.
                let length = min(bytes.count - at, 1 + Int(rng.next() % 120))
                let chunk = Array(bytes[at..<at + length])
                bytes.insert(contentsOf: chunk, at: Int(rng.next() % UInt64(bytes.count)))
            default: bytes.insert(contentsOf: tokens[Int(rng.next() % UInt64(tokens.count))], at: at)
            }
        }
        return bytes
    }

    /// What is wrong with the loader's answer to `input`, if anything; and whether it was accepted.
    static func exercise(_ input: [UInt8]) -> (accepted: Bool, problem: String?) {
        let lines = yamlLines(String(decoding: input, as: UTF8.self))
        do {
            let configuration = try ConfigurationLoader.parse(Data(input), file: "fuzz.yaml")
            let printed = try ConfigurationLoader.yaml(configuration, header: "fuzz")
            let again = try ConfigurationLoader.parse(Data(printed.utf8), file: "printed.yaml")
            return (true, again == configuration ? nil : "printed as\n\(printed)\nit loads back differently")
        } catch let error as ConfigurationFileError {
            guard (1...lines.count).contains(error.line) else {
                return (false, "line \(error.line) of \(lines.count): \(error)")
            }
            let characters = lines[error.line - 1]
            guard (1...characters + 1).contains(error.column) else {
                return (false, "column \(error.column) of a line of \(characters) characters: \(error)")
            }
            return (false, meaningless(error.message).map { "\($0): \(error)" })
        } catch {
            return (false, "printing or reloading failed: \(error)")
        }
    }

    /// Each line's length in characters, lines broken as YAML breaks them (`\n`, `\r\n`, `\r`,
    /// NEL, LS, PS), which is how libyaml and editors count the LINE of an error.
    static func yamlLines(_ text: String) -> [Int] {
        var lengths = [0]
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            if scalar == "\n" && previous == "\r" { continue }
            if ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"].contains(scalar) {
                lengths.append(0)
            } else {
                lengths[lengths.count - 1] += 1
            }
        }
        return lengths
    }

    /// Messages that say nothing to a user.
    static func meaningless(_ message: String) -> String? {
        if message.isEmpty { return "empty message" }
        if message.contains("Cannot initialize") || message.contains("Swift.") || message.contains("DecodingError") {
            return "Swift internals"
        }
        if message.hasPrefix("expected "), let found = message.range(of: ", found ") {
            let expected = message[message.index(message.startIndex, offsetBy: 9)..<found.lowerBound]
            if expected == message[found.upperBound...] { return "expected what was found" }
        }
        return nil
    }

    @Test("mutated configurations never crash; refusals point into the file and say something; accepted ones round-trip")
    func mutations() throws {
        let seeds = try Self.seeds()
        var rng = SplitMix64(seed: 0x7961_6d6c_6675_7a7a)
        var accepted = 0
        var refused = 0
        for i in 0..<Self.iterations {
            let input = Self.mutate(seeds[i % seeds.count], &rng)
            let (ok, problem) = Self.exercise(input)
            if let problem {
                Issue.record("input \(i): \(problem)\n\(String(decoding: input.prefix(3000), as: UTF8.self))")
                return
            }
            if ok { accepted += 1 } else { refused += 1 }
        }
        // Both outcomes must occur, or the mutations are not reaching the loader's corners.
        #expect(accepted > Self.iterations / 20)
        #expect(refused > Self.iterations / 20)
    }

    @Test("the seeds themselves load")
    func seedsLoad() throws {
        for seed in try Self.seeds() {
            #expect(Self.exercise(seed) == (true, nil))
        }
    }
}
