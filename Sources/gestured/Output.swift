#if canImport(Glibc)
import Glibc
#endif

/// Writes a line to standard error (the C `stderr` global is avoided, as `stdout` is, for Swift 6
/// concurrency checking; fd 2 is always there).
func printError(_ message: String) {
    var line = Array(message.utf8)
    line.append(UInt8(ascii: "\n"))
    var written = 0
    while written < line.count {
        let n = line[written...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if n <= 0 { return }
        written += n
    }
}
