import Foundation

/// A fixture compressed with xz, decompressed by `/usr/bin/xz` (xz-utils, part of every Debian).
public func xzDecompressed(_ url: URL) throws -> [UInt8] {
    let (status, output) = try Spawn.run(["xz", "-dc", url.path])
    guard status == 0 else { throw CocoaError(.fileReadCorruptFile) }
    return output
}
