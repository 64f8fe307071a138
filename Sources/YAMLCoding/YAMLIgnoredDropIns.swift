import Glibc

extension YAMLFileSet {
    /// The entries of `file`'s drop-in directory that are not read as drop-ins although they look
    /// meant to be — neither hidden (`.name`, an editor's swap file) nor named `*.yaml` — each as
    /// a sentence that names it and says what to do (`10-site.yml`: rename it to `10-site.yaml`).
    /// A drop-in ignored in silence is a setting that seems to be there and is not; these are
    /// said wherever the set is read (`check-config`, `config --effective`, the daemon's and
    /// `actions`' log). None when the directory does not exist or cannot be read (reading the
    /// set says why).
    public static func ignoredDropIns(of file: String) -> [String] {
        let directory = directory(of: file)
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            let name = String(decoding: bytes, as: UTF8.self)
            guard !name.hasPrefix("."), !name.hasSuffix(".yaml") else { continue }
            names.append(name)
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { name in
            let path = directory + "/" + name
            if name.hasSuffix(".yml") {
                return "\(path) is ignored: only *.yaml files are read; rename it to \(name.dropLast(4)).yaml"
            }
            return "\(path) is ignored: only *.yaml files are read (rename it to end in .yaml to use it)"
        }
    }
}
