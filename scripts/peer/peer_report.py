#!/usr/bin/env python3
"""peer_report.py OUTDIR [VM_SECONDS] - the tables of a run-peer.sh results directory.

Table 1 (recognition): one row per case, one column per daemon (what it recognized, and
whether that matches the case's expected token).  Table 2 (cost): one row per case, per
daemon its CPU seconds (utime+stime) and the ratio to the first daemon.  With rounds (runs
called NAME.rK, run-peer.sh --rounds), a table of each daemon's mean over its rounds and the
ratio of means to the first daemon's; a run pinned by run-peer.sh --pin both (NAME.pin) is
compared with the pinned first daemon of its round instead.  Table 3 (details): one row per
case x daemon.  Also writes OUTDIR/report.tsv (long format, every number)."""
import collections, csv, os, re, statistics, subprocess, sys

HZ = 100


def read_tsv(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    head, body = rows[0], rows[1:]
    return [dict(zip(head, r + [""] * (len(head) - len(r)))) for r in body if r]


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def table(headers, rows):
    w = [len(h) for h in headers]
    for r in rows:
        for i, c in enumerate(r):
            w[i] = max(w[i], len(str(c)))
    line = lambda r: "| " + " | ".join(str(c).ljust(w[i]) for i, c in enumerate(r)) + " |"
    out = [line(headers), "|" + "|".join("-" * (x + 2) for x in w) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out)


def main():
    out = sys.argv[1]
    vmsecs = sys.argv[2] if len(sys.argv) > 2 else "?"
    cases = read_tsv(f"{out}/cases.meta.tsv")
    res = read_tsv(f"{out}/results.tsv")
    daemons = []
    parse = {}
    with open(f"{out}/daemons.meta.tsv") as fh:
        for line in fh:
            n, f = line.rstrip("\n").split("\t", 1)
            daemons.append(n); parse[n] = f
    by = {(r["case"], r["daemon"]): r for r in res}

    def gestures(cid, d):
        p = f"{out}/logs/{cid}.{d}.out"
        if not os.path.exists(p):
            return None
        with open(p, "rb") as fh:
            data = fh.read()
        r = subprocess.run(["bash", "-c", parse[d]], input=data, capture_output=True)
        return [l.strip() for l in r.stdout.decode(errors="replace").splitlines() if l.strip()]

    def verdict(expect, g):
        if expect in ("", "-"):
            return ""
        alts = expect.split("|")
        if expect == "none":
            return "ok" if not g else "WRONG"
        if len(g) == 1 and g[0] in alts:
            return "ok"
        if not g:
            return "MISSED"
        return "ok+extra" if any(x in alts for x in g) else "WRONG"

    def summarize(g):
        if g is None:
            return "(no output file)"
        if not g:
            return "-"
        if len(g) <= 4:
            return ",".join(g)
        c = collections.Counter(g)
        return f"{len(g)} gestures: " + " ".join(f"{k}x{v}" for k, v in c.most_common(6)) + (" ..." if len(c) > 6 else "")

    def output_lines(cid, d):
        p = f"{out}/logs/{cid}.{d}.out"
        if not os.path.exists(p):
            return ""
        with open(p, "rb") as fh:
            return str(sum(1 for _ in fh))

    def complete(r, c):
        """'yes' if the daemon read every frame the kernel delivers and never overflowed."""
        fr, dr, kf = num(r.get("ev_frames")), num(r.get("ev_dropped")), num(c.get("kernel_frames"))
        if fr is None or kf is None:
            return "?"
        return "yes" if fr == kf and not dr else "NO"

    long_rows = []
    t1 = []
    for c in cases:
        row = [c["id"], c["label"][:52], c["expect"]]
        for d in daemons:
            r = by.get((c["id"], d))
            g = gestures(c["id"], d)
            v = verdict(c["expect"], g or [])
            st = r["status"] if r else "not-run"
            cell = summarize(g) + (f" [{v}]" if v else "") + ("" if st == "ok" else f" ({st})")
            if r and complete(r, c) == "NO":
                cell += " (LOST EVENTS)"
            row.append(cell)
            if r:
                ticks = (num(r.get("utime")) or 0) + (num(r.get("stime")) or 0)
                cpu = ticks / HZ
                ns = num(r.get("cpu_ns"))
                ev = num(c["events"]) or 0
                long_rows.append({
                    "case": c["id"], "daemon": d, "status": st, "expect": c["expect"],
                    "recognized": ",".join(g or []), "verdict": v,
                    "events_played": c["events"], "frames_played": c["frames"],
                    "cpu_s": f"{cpu:.2f}", "utime_s": f"{(num(r['utime']) or 0) / HZ:.2f}",
                    "stime_s": f"{(num(r['stime']) or 0) / HZ:.2f}",
                    "children_cpu_s": f"{((num(r['cutime']) or 0) + (num(r['cstime']) or 0)) / HZ:.2f}",
                    "sched_cpu_s": f"{ns / 1e9:.3f}" if ns is not None else "",
                    "events_per_cpu_s": (f"{ev / cpu:.0f}" if cpu > 0 else "inf"),
                    "events_per_sched_cpu_s": (f"{ev / (ns / 1e9):.0f}" if ns else ""),
                    "delivered_events_per_cpu_s": (f"{num(c.get('kernel_events')) / cpu:.0f}"
                                                   if cpu > 0 and num(c.get("kernel_events")) else ""),
                    "frames_read": r.get("ev_frames", ""), "events_read": r.get("ev_events", ""),
                    "frames_expected": c.get("kernel_frames", ""), "events_expected": c.get("kernel_events", ""),
                    "complete": complete(r, c),
                    "syn_dropped": r.get("ev_dropped", ""),
                    "init_cpu_s": f"{(num(r.get('init_ticks')) or 0) / HZ:.2f}", "ready_s": r.get("ready_s", ""),
                    "evemu_play_cpu_s": (f"{(num(r.get('play_user_s')) or 0) + (num(r.get('play_sys_s')) or 0):.2f}"
                                         if num(r.get("play_user_s")) is not None else ""),
                    "replay_wall_s": r.get("play_wall_s", ""), "drain_s": r.get("drain_s", ""),
                    "output_lines": output_lines(c["id"], d), "stderr_lines": r.get("err_lines", ""),
                    "lag_warnings": r.get("lag_lines", ""),
                })
        t1.append(row)

    if os.path.exists(f"{out}/placement"):
        print(open(f"{out}/placement").read().strip())
        print()
    print("Recognition (guest replay at recorded timing unless the case says otherwise):")
    print(table(["case", "label", "expect"] + daemons, t1))
    print()

    # cost pivot
    first = daemons[0] if daemons else None
    L = {(x["case"], x["daemon"]): x for x in long_rows}

    def sched(x):
        """A run's on-CPU seconds (schedstat), or its utime+stime where there is none: what ratios use."""
        return float(x["sched_cpu_s"] or x["cpu_s"] or 0)
    # rounds: NAME, NAME.r2, NAME.r3 ... are one daemon measured several times in the boot
    base_name = lambda d: re.sub(r"\.r[0-9]+$", "", d)

    def reference(d):
        """What a run's ratio is taken against: the first daemon, or for a pinned run (NAME.pin,
        NAME.pin.rK) the pinned first daemon of its round."""
        if not base_name(d).endswith(".pin"):
            return first
        return f"{first}.pin{d[len(base_name(d)):]}"

    t2 = []
    for c in cases:
        row = [c["id"], c["events"]]
        for d in daemons:
            x = L.get((c["id"], d))
            if not x:
                row += ["-", "-"]; continue
            cpu = float(x["cpu_s"])
            base = L.get((c["id"], reference(d)))
            ratio = "-"
            if base and d != reference(d):
                b = sched(base)
                m = sched(x)
                ratio = f"{m / b:.2f}x" if b > 0 else "-"
            row += [f"{cpu:.2f} ({x['sched_cpu_s']})" + ("" if x["complete"] != "NO" else " LOST EVENTS"), x["events_per_cpu_s"]]
            if d != reference(d):
                row.append(ratio)
        t2.append(row)
    hdr = ["case", "events"]
    for d in daemons:
        hdr += [f"{d} CPU s (sched)", f"{d} ev/CPU-s"]
        if d != reference(d):
            hdr.append(f"{d}/{reference(d)}")
    print("Cost (daemon utime+stime during replay+drain, from /proc/PID/stat ticks; in parentheses the")
    print("on-CPU seconds from /proc/PID/task/*/schedstat, which ratios use; ev/CPU-s = events played /")
    print("utime+stime). Guest time is emulated (~10x host): compare daemons, not absolute numbers.")
    print(table(hdr, t2))
    print()

    names = list(dict.fromkeys(base_name(d) for d in daemons))
    if len(names) < len(daemons):
        t4 = []
        for c in cases:
            runs = {n: [sched(L[(c["id"], d)]) for d in daemons
                        if base_name(d) == n and (c["id"], d) in L and L[(c["id"], d)]["status"] == "ok"]
                    for n in names}
            for n in names:
                v = runs[n]
                if not v:
                    t4.append([c["id"], n, 0, "-", "-", "-"]); continue
                m = statistics.mean(v)
                r = runs.get(reference(n))
                t4.append([c["id"], n, len(v), f"{m:.2f}", f"{min(v):.2f}–{max(v):.2f}",
                           "" if n == reference(n) else (f"{m / statistics.mean(r):.2f}x" if r else "-")])
        against = f"{first}'s" + (f", a pinned one's to {first}.pin's" if any(n.endswith(".pin") for n in names) else "")
        print(f"Rounds (each daemon's on-CPU seconds over its rounds in this boot, and the ratio of its mean to {against}):")
        print(table(["case", "daemon", "runs", "mean CPU s", "min–max", f"mean/{first} mean"], t4))
        print()

    t3 = []
    for x in long_rows:
        t3.append([x["case"], x["daemon"], x["status"], x["cpu_s"], x["utime_s"], x["stime_s"], x["children_cpu_s"],
                   x["init_cpu_s"], f"{x['frames_read']}/{x['frames_expected']}", x["syn_dropped"],
                   x["evemu_play_cpu_s"], x["replay_wall_s"], x["drain_s"], x["output_lines"], x["lag_warnings"]])
    print("Details per run (frames read = SYN_REPORTs the daemon got from libevdev_next_event (evcount.so), out of")
    print("the non-empty frames the kernel delivers; drops = SYN_DROPPED, i.e. its kernel buffer overflowed and it")
    print("lost events, which also makes its CPU figure too low; evemu-play CPU = user+sys of the replayer;")
    print("output lines = what the daemon, or gestured's client, printed: lisgd's bound commands' lines, the")
    print("client's hello and the messages it received):")
    print(table(["case", "daemon", "status", "CPU s", "user", "sys", "children", "init CPU s", "frames read/delivered",
                 "drops", "evemu-play CPU s", "replay wall s", "drain s", "output lines", "lag warnings"], t3))
    print()
    bench = [x for x in long_rows if x["case"].startswith("bench-")]
    if bench:
        print("Bench summary (guest CPU; events played = what evemu-play wrote, delivered = what the kernel passes")
        print("to a reader after dropping repeated values and empty frames):")
        for x in bench:
            print(f"  {x['case']:<18} {x['daemon']:<16} CPU {x['cpu_s']:>6} s (user {x['utime_s']}, sys {x['stime_s']}; "
                  f"+{x['children_cpu_s']} s in bound commands) = {x['events_per_cpu_s']} played ev/CPU-s, "
                  f"{x['delivered_events_per_cpu_s']} delivered ev/CPU-s; complete={x['complete']} "
                  f"(frames {x['frames_read']}/{x['frames_expected']}, SYN_DROPPED {x['syn_dropped']}); "
                  f"evemu-play CPU {x['evemu_play_cpu_s']} s, replay {x['replay_wall_s']} s wall; "
                  f"{x['output_lines']} output lines")
        print()
    print(f"VM run: {vmsecs}s host wall clock (boot + all runs + shutdown).")
    keys = list(long_rows[0].keys()) if long_rows else []
    with open(f"{out}/report.tsv", "w") as fh:
        fh.write("\t".join(keys) + "\n")
        for x in long_rows:
            fh.write("\t".join(str(x[k]) for k in keys) + "\n")


if __name__ == "__main__":
    main()
