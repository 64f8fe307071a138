import Glibc

/// An error from a system or library call of the input or the output side (reading a panel,
/// creating a uinput device, writing to it).
public struct InputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call that failed (`open`, `libevdev_new_from_fd`…).
    public var call: String
    /// The file it was about, if any.
    public var path: String?
    /// The errno value.
    public var errno: Int32

    public init(call: String, path: String? = nil, errno: Int32) {
        self.call = call
        self.path = path
        self.errno = errno
    }

    public var description: String {
        let what = path.map { "\($0): " } ?? ""
        return "\(what)\(call) failed: \(String(cString: strerror(errno)))"
    }
}
