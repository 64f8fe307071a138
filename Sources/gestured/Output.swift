import Glibc

// Output without the C `stdout`/`stderr` globals (Swift 6 concurrency checking rejects them) and
// without stdio buffering: a test or a pipe (`| jq`) waiting for a line gets it at once.

/// Writes a line on standard error.
func printError(_ message: String) {
    writeAll(2, message + "\n")
}

/// Writes a status line on standard output at once.
func say(_ message: String) {
    writeAll(1, message + "\n")
}

/// Writes everything to a file descriptor, retrying short writes and EINTR.
func writeAll(_ fd: Int32, _ text: String) {
    var text = text
    text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
}

/// Writes all of `bytes` to a file descriptor, retrying short writes and EINTR.
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < bytes.count {
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        offset += n
    }
}

/// "1 region", "2 regions": a count and its noun, singular or plural.
func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
    "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
}

/// Where the package installs what a help text names: a kiosk has the package, not the
/// repository (in the source these are docs/, examples/, systemd/ and udev-rules/). The package
/// stage's test finds every such path installed (scripts/test-package.sh).
enum Installed {
    static let docs = "/usr/share/doc/gestured"
    /// A guide, gzipped as Debian keeps documentation (`zless` reads it).
    static func guide(_ name: String) -> String { "\(docs)/\(name).md.gz" }
    /// An example file, as it is (a recording to replay, a file to copy).
    static func example(_ path: String) -> String { "\(docs)/examples/\(path)" }
}
