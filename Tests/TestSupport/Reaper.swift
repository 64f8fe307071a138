import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ends what the tests start: every program ``Spawn`` starts is listed here from its start until
/// it is reaped, and one that is still running when its ``ChildProcess`` goes away (its test is
/// over) or when the test process exits is killed with its process group (SIGKILL: a test's own
/// SIGTERM came first, where the test meant to stop it gracefully). A process id leaves the list
/// only as it is reaped, under the same lock, so a kill never reaches a process that got the id
/// after it.
enum Reaper {
    private static let live: Mutex<Set<pid_t>> = {
        atexit { Reaper.endAll() }
        return Mutex([])
    }()

    /// Runs `spawn`, which returns its result and the started program's id (nil: none started),
    /// and lists the program.
    static func started(_ spawn: () -> (Int32, pid_t?)) -> Int32 {
        live.withLock { live in
            let (result, pid) = spawn()
            if let pid { live.insert(pid) }
            return result
        }
    }

    /// Waits for the program to end and reaps it: its wait status.
    static func reap(_ pid: pid_t) -> Int32 {
        // Waits without reaping first: while the program is a zombie its id stays its own, so a
        // kill meanwhile (``end(_:)``) reaches it or its group and nothing else.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        var status: Int32 = 0
        live.withLock { live in
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            live.remove(pid)
        }
        return status
    }

    /// Kills the program and its process group if it has not been reaped yet.
    static func end(_ pid: pid_t) {
        live.withLock { live in
            if live.contains(pid) { kill(-pid, SIGKILL) }
        }
    }

    /// Kills every program not reaped yet, with its group: the test process is exiting.
    private static func endAll() {
        live.withLock { live in
            for pid in live { kill(-pid, SIGKILL) }
        }
    }
}
