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

/// `line` as a terminal shows it without obeying it: every control character — C0 (the escape
/// that starts `ESC]0;…BEL`, which retitles a terminal), DEL, C1 — spelled `\x1b`, `\x7f`,
/// `\u{9b}`. For what a peer, a device or a file chose and a command prints for people: a panel's
/// name (a USB device names itself), a drop-in's file name, a page's origin.
func printable(_ line: some StringProtocol) -> String {
    var text = ""
    for scalar in line.unicodeScalars {
        switch scalar.value {
        case 0..<0x20, 0x7F:
            let digits = String(scalar.value, radix: 16)
            text += "\\x" + (digits.count == 1 ? "0" : "") + digits
        case 0x80..<0xA0:
            text += "\\u{\(String(scalar.value, radix: 16))}"
        default:
            text.unicodeScalars.append(scalar)
        }
    }
    return text
}
