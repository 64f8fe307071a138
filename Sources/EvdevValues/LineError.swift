/// A malformed line of a text input (an evemu recording or description, a gesture script): the
/// 1-based line and what is wrong with it. Callers put the file name in front
/// (`FILE:LINE: message`).
public struct LineError: Error, Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String

    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}
