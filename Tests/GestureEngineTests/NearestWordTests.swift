import GestureEngine
import Testing

/// "Did you mean": one helper for every message that refuses a name.
@Suite struct NearestWordTests {
    @Test(
        "a typo finds the word meant",
        arguments: [
            ("swipee", "swipe"), ("tapp", "tap"), ("double-tapp", "double-tap"), ("tapps", "taps"),
            ("rigth", "right"), ("edgs", "edges"), ("Pinch", "pinch"), ("lnog-press", "long-press"),
        ])
    func typo(_ typed: String, _ meant: String) {
        let words = ["tap", "double-tap", "taps", "swipe", "right", "left", "edges", "pinch", "long-press", "pan"]
        #expect(NearestWord.suggestion(for: typed, among: words) == meant)
        #expect(NearestWord.hint(for: typed, among: words) == "; did you mean '\(meant)'?")
    }

    @Test("a word near none, a known word and an empty one find nothing")
    func nothing() {
        let words = ["tap", "swipe", "pinch"]
        #expect(NearestWord.suggestion(for: "zoom", among: words) == nil)
        #expect(NearestWord.suggestion(for: "swipe", among: words) == nil)
        #expect(NearestWord.suggestion(for: "", among: words) == nil)
        #expect(NearestWord.hint(for: "wave", among: words) == "")
    }

    /// Over random words and one random edit (insert, delete, replace or swap two neighbours): the
    /// word is always found again when it is the only candidate and at least three letters long,
    /// since one edit is within a third of its letters.
    @Test("one edit of a word of three letters or more always finds it")
    func oneEdit() {
        var generator = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 0...UInt64.max, using: &generator)
        var rng = SplitMix(seed)
        let letters = Array("abcdefghijklmnopqrstuvwxyz-")
        for _ in 0..<2000 {
            let length = Int(rng.next() % 12) + 3
            let word = String((0..<length).map { _ in letters[Int(rng.next() % UInt64(letters.count))] })
            var typed = Array(word)
            let at = Int(rng.next() % UInt64(typed.count))
            let letter = letters[Int(rng.next() % UInt64(letters.count))]
            switch rng.next() % 4 {
            case 0: typed.insert(letter, at: at)
            case 1: typed.remove(at: at)
            case 2: typed[at] = letter
            default: if at + 1 < typed.count { typed.swapAt(at, at + 1) }
            }
            let text = String(typed)
            guard text != word else { continue }
            let found = NearestWord.suggestion(for: text, among: [word, "zzzzzzzzzzzzzzzzzzzz"])
            #expect(found == word, "seed \(seed): '\(text)' (from '\(word)') found \(found ?? "nothing")")
            if found != word { return }
        }
    }
}

/// A small seeded generator, so a failure's seed replays it.
private struct SplitMix {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
