/// Device-name patterns of `when` and `accepts`: `*` matches any run of characters, `?` one.
enum DeviceNamePattern {
    static func matches(_ pattern: String, _ name: String) -> Bool {
        let p = Array(pattern.utf8)
        let s = Array(name.utf8)
        var pi = 0
        var si = 0
        var star = -1
        var mark = 0
        while si < s.count {
            if pi < p.count && (p[pi] == UInt8(ascii: "?") || p[pi] == s[si]) {
                pi += 1
                si += 1
            } else if pi < p.count && p[pi] == UInt8(ascii: "*") {
                star = pi
                mark = si
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                si = mark
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.count
    }

    /// True when `patterns` is empty (any device) or one of them matches.
    static func matchesAny(_ patterns: [String], _ name: String) -> Bool {
        patterns.isEmpty || patterns.contains { matches($0, name) }
    }
}
