/// A hostile local client of the daemon's socket as the process tests use it: a Python socket
/// that speaks raw JSON lines, outside the project's own client code. It prints every line it
/// receives; sends each request after the previous one's reply (matched by `id`) and prints
/// `replied`; then reads until its ``Stop`` says, and exits 3 when the daemon closes.
public enum ScriptedClient {
    /// What the client reads for after the replies.
    public enum Stop {
        /// Nothing: it exits after the replies.
        case afterReplies
        /// It stays connected (reading nothing) until killed.
        case never
        /// The first message of this `type`.
        case type(String)
        /// `count` `recognized` gestures of each of these names.
        case gestures([String], count: Int)

        var argument: String {
            switch self {
            case .afterReplies: "-"
            case .never: "stay"
            case .type(let type): "type:\(type)"
            case .gestures(let names, let count): "gestures:\(count):\(names.joined(separator: ","))"
            }
        }
    }

    static let source = """
        import json, socket, sys, time
        path, timeout, stop, requests = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]
        s = socket.socket(socket.AF_UNIX); s.connect(path); s.settimeout(timeout)
        f = s.makefile("rwb", buffering=0)
        def read():
            line = f.readline()
            if not line: sys.exit(3)
            print(line.decode().rstrip("\\n"), flush=True)
            return json.loads(line)
        read()
        for request in requests:
            f.write((request + "\\n").encode())
            wanted = json.loads(request).get("id")
            while read().get("id") != wanted: pass
        print("replied", flush=True)
        if stop == "stay":
            time.sleep(3600)
        elif stop.startswith("type:"):
            while read().get("type") != stop[5:]: pass
        elif stop.startswith("gestures:"):
            _, count, names = stop.split(":", 2)
            left = {name: int(count) for name in names.split(",")}
            while left:
                m = read()
                if m.get("type") == "gesture" and m.get("state") == "recognized" and left.get(m["name"], 0) > 0:
                    left[m["name"]] -= 1
                    if left[m["name"]] == 0: del left[m["name"]]
        """

    /// Starts the client on `socket`; it gives up after `timeout` seconds of silence.
    public static func start(
        _ socket: String, timeout: Int, until stop: Stop = .afterReplies, _ requests: [String]
    ) throws -> ChildProcess {
        try ChildProcess(["python3", "-c", source, socket, String(timeout), stop.argument] + requests)
    }
}
