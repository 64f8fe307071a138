#!/usr/bin/env python3
"""prep_case.py - turn one evemu recording into the two files the guest replays.

usage: prep_case.py [--desc DESCFILE] [--speed orig|max|FACTOR] [--screen-long PX] OUTDIR ID RECORDING
writes OUTDIR/ID.desc  device description only ('# EVEMU x.y' + N/I/P/B/A/L/S lines),
                       for `evemu-device ID.desc`
       OUTDIR/ID.play  the E: lines only, for `evemu-play /dev/input/eventN < ID.play`
prints one tab-separated line on stdout:
  ID events frames duration_s W H slots backsteps unsupported kernel_events kernel_frames device-name
'kernel_events/frames': what an evdev client of the uinput device should read (see
kernel_delivery(): duplicate values and empty frames never leave the kernel).
'unsupported': events whose type/code the description's B: bitmask does not enable. The kernel
drops those silently (evemu-play only warns about the first three), so a daemon never sees
them; run-peer.sh warns.
W x H: the "screen" a daemon is told about (lisgd -w/-h): the long side is --screen-long
(default 1920) and the aspect ratio is the touch surface's (mm when both axes have a
resolution, else axis units).

Why the files are rewritten instead of played as they are:
  * old evemu-devices recordings are split (NAME.desc + NAME.DESC.events): --desc joins them;
  * evemu's reader stops at the first line of 2 characters or fewer, so a blank line in a
    recording silently ends the replay: only E: lines are kept;
  * evemu-play sleeps for (t_event - t_prev) computed in *unsigned* microseconds, so a
    timestamp that goes backwards means sleeping for ~forever: backward steps are clamped
    (counted in 'backsteps');
  * --speed max gives every event the same timestamp (no sleeps: as fast as evemu-play
    can write), --speed F divides the time deltas by F, --speed orig keeps them.
*.xz recordings are decompressed.
"""
import argparse, collections, lzma, sys


def open_text(path):
    return lzma.open(path, "rt", errors="replace") if path.endswith(".xz") else open(path, errors="replace")


def kernel_delivery(play, enabled, absinfo, slots):
    """What an evdev client should read when `play` is written to a uinput device with this
    description: the input core (drivers/input/input.c, input_handle_event) drops codes the
    device lacks, ABS values equal to the current one (after defuzzing, per MT slot), key
    values equal to the current state, holds ABS_MT_SLOT back until a value in that slot
    passes, and forwards a SYN_REPORT only if something else is pending (an empty frame
    vanishes).  Returns (events incl. SYN_REPORTs and injected ABS_MT_SLOTs, frames)."""
    def cdiv(a, b):
        q = abs(a) // b
        return q if a >= 0 else -q

    def defuzz(v, old, fuzz):
        if fuzz:
            if old - fuzz // 2 < v < old + fuzz // 2:
                return old
            if old - fuzz < v < old + fuzz:
                return cdiv(old * 3 + v, 4)
            if old - fuzz * 2 < v < old + fuzz * 2:
                return cdiv(old + v, 2)
        return v
    absval = {c: 0 for c in absinfo}
    mt = [dict() for _ in range(max(slots, 1))]
    for sl in mt:
        sl[0x39] = -1
    cur_slot = 0; flushed_slot = 0
    keys = set()
    pending = 0; ev = frames = 0
    with open(play) as fh:
        for line in fh:
            f = line.split()
            t = int(f[2], 16); c = int(f[3], 16); v = int(f[4])
            if t == 0:
                if c == 0:
                    if pending:
                        ev += pending + 1; frames += 1
                    pending = 0
                continue
            if (t, c) not in enabled:
                continue
            if t == 1:
                if v == 2 or ((c in keys) != bool(v)):
                    if v != 2:
                        keys.symmetric_difference_update({c})
                    pending += 1
            elif t == 3:
                if c == 0x2f:
                    if slots and 0 <= v < slots:
                        cur_slot = v
                    continue
                fuzz = absinfo.get(c, (0, 0, 0, 0))[3]
                if 0x30 <= c <= 0x3d and c != 0x2f and slots:
                    old = mt[cur_slot].get(c, 0)
                    v = defuzz(v, old, fuzz)
                    if v == old:
                        continue
                    mt[cur_slot][c] = v
                    if cur_slot != flushed_slot:
                        flushed_slot = cur_slot
                        pending += 1          # the injected ABS_MT_SLOT
                    pending += 1
                else:
                    old = absval.get(c, 0)
                    v = defuzz(v, old, fuzz)
                    if v == old:
                        continue
                    absval[c] = v
                    pending += 1
            else:
                pending += 1
    return ev, frames


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--desc")
    ap.add_argument("--speed", default="orig")
    ap.add_argument("--screen-long", type=int, default=1920)
    ap.add_argument("outdir"); ap.add_argument("id"); ap.add_argument("recording")
    a = ap.parse_args()

    version = None
    desc = []          # N/I/P/B/A/L/S lines
    absinfo = {}       # code -> (min, max, res)
    enabled = set()    # (type, code) enabled by the B: lines, evemu semantics
    mbytes = {}        # type -> bytes of bitmask seen so far
    CODE_MAX = {1: 0x2ff, 2: 0x0f, 3: 0x3f, 4: 0x07, 5: 0x10, 0x11: 0x0f, 0x12: 0x7f, 0x14: 0x01, 0x15: 0x7f}

    def take_desc_line(line):
        nonlocal version
        s = line.strip()
        if s.startswith("# EVEMU") and version is None:
            version = s
        elif s[:2] in ("N:", "I:", "P:", "B:", "A:", "L:", "S:"):
            if s[:2] == "N:" and any(d.startswith("N:") for d in desc):
                return  # second description block: ignore
            desc.append(s)
            if s[:2] == "B:":
                f = s[2:].split()
                t = int(f[0], 16); off = mbytes.get(t, 0)
                for i, b in enumerate(f[1:9]):
                    for bit in range(8):
                        if int(b, 16) >> bit & 1:
                            code = (off + i) * 8 + bit
                            if code <= CODE_MAX.get(t, 0x3ff):
                                enabled.add((t, code))
                mbytes[t] = off + 8
            if s[:2] == "A:":
                f = s[2:].split()
                code = int(f[0], 16)
                res = int(f[5]) if len(f) > 5 else 0
                absinfo[code] = (int(f[1]), int(f[2]), res, int(f[3]))

    if a.desc:
        with open_text(a.desc) as fh:
            for line in fh:
                take_desc_line(line)

    speed = a.speed
    flat = speed == "max"
    factor = 1.0 if speed in ("orig", "max") else float(speed)
    n_ev = n_frames = backsteps = 0
    used = collections.Counter()
    t_first = t_prev_in = None
    t_out = 1.0
    with open_text(a.recording) as fh, open(f"{a.outdir}/{a.id}.play", "w") as play:
        for line in fh:
            if not line.startswith("E:"):
                if not a.desc:
                    take_desc_line(line)
                continue
            f = line[2:].split()
            if len(f) < 4:
                continue
            t = float(f[0]); typ = int(f[1], 16); code = int(f[2], 16); val = int(f[3])
            if t_first is None:
                t_first = t_prev_in = t
            if t < t_prev_in:
                backsteps += 1
                t = t_prev_in
            if not flat:
                t_out = 1.0 + (t - t_first) / factor
            t_prev_in = t
            play.write(f"E: {t_out:.6f} {typ:04x} {code:04x} {val}\n")
            n_ev += 1
            if typ != 0:
                used[(typ, code)] += 1
            if typ == 0 and code == 0:
                n_frames += 1
    if not desc or not desc[0].startswith("N:"):
        sys.exit(f"{a.recording}: no device description (old split format? pass --desc)")
    unsupported = sum(n for k, n in used.items() if k not in enabled)
    with open(f"{a.outdir}/{a.id}.desc", "w") as out:
        out.write((version or "# EVEMU 1.2") + "\n" + "\n".join(desc) + "\n")

    # screen geometry with the touch surface's aspect ratio
    def axis(mt, st):
        return absinfo.get(mt) or absinfo.get(st) or (0, 0, 0, 0)
    x0, x1, xr, _ = axis(0x35, 0x00)
    y0, y1, yr, _ = axis(0x36, 0x01)
    wx, wy = max(1, x1 - x0), max(1, y1 - y0)
    if xr > 0 and yr > 0:
        wx, wy = wx / xr, wy / yr
    L = a.screen_long
    W, H = (L, round(L * wy / wx)) if wx >= wy else (round(L * wx / wy), L)
    slots = absinfo[0x2f][1] - absinfo[0x2f][0] + 1 if 0x2f in absinfo else 0
    dur = (t_prev_in - t_first) if t_first is not None else 0.0
    name = desc[0][2:].strip()
    k_ev, k_frames = kernel_delivery(f"{a.outdir}/{a.id}.play", enabled, absinfo, slots)
    print(f"{a.id}\t{n_ev}\t{n_frames}\t{dur:.3f}\t{W}\t{H}\t{slots}\t{backsteps}\t{unsupported}\t{k_ev}\t{k_frames}\t{name}")


if __name__ == "__main__":
    main()
