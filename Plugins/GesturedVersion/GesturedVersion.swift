import Foundation
import PackagePlugin

/// Writes `gesturedVersion` from the repository's `VERSION` file: the one place the version is
/// said. `gestured --version`, the `hello` message, the Debian package (scripts/package-deb.sh)
/// and its changelog all take it from there (Tests/GestureDaemonTests/VersionTests.swift checks
/// that they agree). The build reruns the command whenever `VERSION` changes.
@main
struct GesturedVersion: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let input = context.package.directoryURL.appending(path: "VERSION")
        let output = context.pluginWorkDirectoryURL.appending(path: "GesturedVersion.swift")
        return [
            .buildCommand(
                displayName: "Writing gesturedVersion from VERSION",
                executable: URL(filePath: "/bin/sh"),
                arguments: [
                    "-c", Self.script, "sh", input.path(percentEncoded: false), output.path(percentEncoded: false),
                ],
                inputFiles: [input],
                outputFiles: [output]
            )
        ]
    }

    /// The version must be one line that Debian takes as a native package's version (a digit
    /// first, then letters, digits, `.`, `+` and `~`), so every place it goes can take it as is.
    static let script = #"""
        set -eu
        version=$(cat "$1")
        if [ "$(wc -l < "$1")" != 1 ] || ! printf '%s\n' "$version" | grep -Eqx '[0-9][A-Za-z0-9.+~]*'; then
            echo "$1:1:1: error: '$version' is not a version: one line, a digit first," \
                "then letters, digits, '.', '+' or '~'" >&2
            exit 1
        fi
        cat > "$2" <<SWIFT
        /// The daemon's version, announced in \`hello\` and printed by \`gestured --version\`: the
        /// repository's VERSION file (written at build time by Plugins/GesturedVersion).
        public let gesturedVersion = "$version"
        SWIFT
        """#
}
