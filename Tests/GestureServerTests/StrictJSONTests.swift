import Foundation
import TestSupport
import Testing

@testable import GestureProtocol

/// StrictJSON against Foundation's parser on mutated requests: they agree on what is JSON,
/// except where the protocol is stricter on purpose (duplicate keys, numbers beyond a 64-bit
/// float, nesting deeper than 128) and where Foundation is lenient (it takes a trailing comma,
/// `[1,]`, which RFC 8259 does not).
@Suite struct StrictJSONTests {
    static let seeds = [
        #"{"type":"ping","id":"hb-1"}"#,
        #"{"type":"subscribe","id":1,"gestures":["tap","swipe"],"touches":false,"states":null}"#,
        #"{"type":"define","id":3,"regions":[{"name":"k","rect":{"x":0.5,"y":-0.5e-3,"width":0.5,"height":1E2}}],"recognizers":[{"name":"k-tap","kind":"tap","taps":2,"slop-mm":4.25}]}"#,
        #"{"s":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00 é","a":[[],{},[1,-0,0.0,true,false,null]]}"#,
    ].map { Array($0.utf8) }

    static let pieces: [[UInt8]] = [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "\\udc00", "e", "E", "-", "+", ".", "0", "01",
        "1e999", "true", "nul", " ", "\t", "\u{1}", "\u{7f}", "é", "\"k\":1",
    ].map { Array($0.utf8) }

    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + Int(rng.next() % 3)) {
            let at = bytes.isEmpty ? 0 : Int(rng.next() % UInt64(bytes.count))
            switch rng.next() % 4 {
            case 0 where !bytes.isEmpty: bytes.remove(at: at)
            case 1: bytes.insert(contentsOf: pieces[Int(rng.next() % UInt64(pieces.count))], at: at)
            case 2 where !bytes.isEmpty: bytes[at] = UInt8(truncatingIfNeeded: rng.next() % 128)
            default: bytes = Array(bytes.prefix(at))
            }
        }
        return bytes
    }

    @Test func `strict JSON and Foundation agree on 20 000 mutated requests`() {
        var rng = SplitMix64(seed: 12)
        var disagreements: [String] = []
        var accepted = 0
        for i in 0..<20_000 {
            let line = Self.mutate(Self.seeds[i % Self.seeds.count], &rng)
            guard String(validating: line, as: UTF8.self) != nil else { continue }
            let foundation = (try? JSONSerialization.jsonObject(with: Data(line), options: .fragmentsAllowed)) != nil
            switch StrictJSON.check(line) {
            case nil:
                accepted += 1
                if !foundation { disagreements.append(String(decoding: line, as: UTF8.self)) }
            case .syntax?:
                let text = String(decoding: line, as: UTF8.self)
                let trailingComma = text.contains(/,\s*[}\]]/)
                if foundation && !trailingComma { disagreements.append(text) }
            case .value?:
                break
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
        #expect(accepted > 1000, "the mutations leave enough valid JSON to compare")
    }

    @Test func `escapes decode to the same key, so a duplicate in disguise is found`() {
        #expect(
            StrictJSON.check(Array(#"{"é":1,"\u00e9":2}"#.utf8))
                == .value(
                    "duplicate key 'é' in this object", path: [.key("é")]))
        #expect(StrictJSON.check(Array(#"{"\ud83d\ude00":1,"😀":2}"#.utf8)) != nil)
        #expect(StrictJSON.check(Array(#"{"a":{"b":1},"c":{"b":1}}"#.utf8)) == nil, "the same key in two objects")
    }

    @Test func `nesting is limited, and the limit is a syntax error`() {
        let deep = String(repeating: "[", count: 129) + String(repeating: "]", count: 129)
        guard case .syntax(let message, _)? = StrictJSON.check(Array(deep.utf8)) else {
            Issue.record("129 levels accepted")
            return
        }
        #expect(message.contains("128"))
        let allowed = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
        #expect(StrictJSON.check(Array(allowed.utf8)) == nil)
    }
}
