import Foundation

/// The shared corpus of real recordings (../shared/corpus, or `$GESTURED_CORPUS`): read in optional
/// tests only, never copied into the repository.
enum Corpus {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static var recordingsFolder: URL? {
        let env = ProcessInfo.processInfo.environment["GESTURED_CORPUS"]
        let url =
            env.map { URL(fileURLWithPath: $0) }
            ?? repositoryRoot.appendingPathComponent("../shared/corpus/recordings").standardizedFileURL
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? url : nil
    }

    static var available: Bool { recordingsFolder != nil }

    /// Relative paths (`hid-devices/3m_0596_0500_0.ev.xz`) of every file under the folder.
    static func files(where include: (String) -> Bool) -> [String] {
        guard let root = recordingsFolder,
            let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        else { return [] }
        var result: [String] = []
        for case let url as URL in walker where !url.hasDirectoryPath {
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            if include(relative) { result.append(relative) }
        }
        return result.sorted()
    }

    /// Recordings (files with events).
    static var recordings: [String] { files { $0.contains(".ev") } }
    /// Device descriptions only.
    static var descriptions: [String] { files { $0.hasSuffix(".prop") } }

    /// A file's bytes, decompressed when it ends in `.xz`.
    static func bytes(of relative: String) throws -> [UInt8] {
        let url = recordingsFolder!.appendingPathComponent(relative)
        guard relative.hasSuffix(".xz") else { return Array(try Data(contentsOf: url)) }
        return try Fixture.xzDecompress(url)
    }
}

/// The committed fixtures (Tests/TouchInputTests/Fixtures).
enum Fixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        let url = folder.appendingPathComponent(name)
        return name.hasSuffix(".xz") ? try xzDecompress(url) : Array(try Data(contentsOf: url))
    }

    static func xzDecompress(_ url: URL) throws -> [UInt8] {
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
}
