import Foundation

/// A fixture compressed with xz, decompressed by `/usr/bin/xz` (xz-utils, part of every Debian).
public func xzDecompressed(_ url: URL) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/xz")
    process.arguments = ["-dc", url.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw CocoaError(.fileReadCorruptFile) }
    return Array(data)
}
