/// "Did you mean": the known word nearest a mistyped one, for every message that refuses a name
/// (a configuration key, a kind, a recognizer or region, an actions file's `on:`, a command-line
/// filter), so they all suggest alike. Nearness is the optimal-string-alignment distance
/// (insertions, deletions, substitutions, and swaps of two neighbours, each counting one), case
/// ignored; a word counts as meant when at most a third of its letters (at least one) differ, so
/// `swipee` finds `swipe` and `zoom` finds nothing. Hand-written (twenty lines): none of the
/// packages the project builds on computes an edit distance.
public enum NearestWord {
    /// The candidate nearest `word` (the first of equally near ones, in the order given), nil when
    /// none is near enough or `word` is itself a candidate.
    public static func suggestion(for word: String, among candidates: some Sequence<String>) -> String? {
        let typed = Array(word.lowercased().unicodeScalars)
        guard !typed.isEmpty else { return nil }
        let limit = max(1, typed.count / 3)
        var best: (word: String, distance: Int)?
        for candidate in candidates {
            if candidate == word { return nil }
            let distance = self.distance(typed, Array(candidate.lowercased().unicodeScalars))
            if distance <= limit && distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.word
    }

    /// `"; did you mean 'swipe'?"`, or nothing when no candidate is near: for the end of a
    /// message that says what is wrong.
    public static func hint(for word: String, among candidates: some Sequence<String>) -> String {
        suggestion(for: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// The optimal-string-alignment distance between two words, in two rows and a third for swaps.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
