import Foundation
import TestSupport

/// An optional corpus of real recordings, read in optional tests only and never copied into the
/// repository: `$GESTURED_CORPUS`, a folder of evemu recordings (docs/INPUT.md, "Quirks met in the
/// corpus"). Unset, the corpus tests are skipped and say so.
enum Corpus {
    /// What `$GESTURED_CORPUS` names (nil when unset or empty).
    static let configuredPath: String? = {
        guard let path = ProcessInfo.processInfo.environment["GESTURED_CORPUS"], !path.isEmpty else { return nil }
        return path
    }()

    /// Whether the corpus tests run: `$GESTURED_CORPUS` is set. A path that names no folder is then
    /// a failure (`CorpusReplayTests`), not a skip.
    static var configured: Bool { configuredPath != nil }

    static var recordingsFolder: URL? {
        guard let path = configuredPath else { return nil }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? URL(fileURLWithPath: path) : nil
    }

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

    /// Recordings (files with events: evemu, or `libinput record` YAML). Split recordings (`X_gesture.events`, whose device is in
    /// `X.desc` beside it: evemu-devices/tablets-indirect-touch) count as recordings too.
    static var recordings: [String] {
        files { $0.contains(".ev") || $0.hasSuffix(".yml") || $0.hasSuffix(".yaml") }
    }
    /// Device descriptions only (`.prop`, and the `.desc` of split recordings).
    static var descriptions: [String] { files { $0.hasSuffix(".prop") || $0.hasSuffix(".desc") } }

    /// A file's bytes, decompressed when it ends in `.xz`; a split recording's `.events` comes
    /// after its device's `.desc`, as evemu-play expects them joined.
    static func bytes(of relative: String) throws -> [UInt8] {
        let url = recordingsFolder!.appendingPathComponent(relative)
        if relative.hasSuffix(".xz") { return try xzDecompressed(url) }
        let events = Array(try Data(contentsOf: url))
        guard let description = splitDescription(of: relative) else { return events }
        return Array(try Data(contentsOf: recordingsFolder!.appendingPathComponent(description))) + events
    }

    /// `dir/Model_gesture.events` → `dir/Model.desc`: the longest `.desc` in the same folder
    /// whose name (without extension) is a prefix of the recording's.
    static func splitDescription(of relative: String) -> String? {
        guard relative.hasSuffix(".events") else { return nil }
        let folder = relative.split(separator: "/").dropLast().joined(separator: "/")
        return files { $0.hasSuffix(".desc") && $0.hasPrefix(folder + "/") }
            .filter { relative.hasPrefix(String($0.dropLast(".desc".count)) + "_") }
            .max { $0.count < $1.count }
    }

    /// Split recordings: the finger layer of pen tablets (no INPUT_PROP_DIRECT), replayed the way
    /// their README says, as forced touchscreens.
    static func isTabletTouchLayer(_ relative: String) -> Bool { relative.hasSuffix(".events") }
}

/// The committed fixtures (Tests/TouchInputTests/Fixtures).
enum Fixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        let url = folder.appendingPathComponent(name)
        return name.hasSuffix(".xz") ? try xzDecompressed(url) : Array(try Data(contentsOf: url))
    }
}
