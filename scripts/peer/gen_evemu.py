#!/usr/bin/env python3
"""Write the peer bench's synthetic evemu recording: a 10-slot, 10 units/mm touchscreen
(3200 x 2000 units, INPUT_PROP_DIRECT) on which groups of 1 to 10 fingers land, move and lift at
120 Hz. A group is 180 frames: 160 frames of movement, then the lift and 19 frames without
touches; the groups cycle through pans (kind 0), spreading pinches (1) and rotations (2), and
the finger count goes 1, 2, … 10, 1, … The same FRAMES always give the same bytes.

usage: gen_evemu.py FRAMES > bench.evemu

The description enables exactly what the events use (EV_SYN, EV_KEY BTN_TOUCH, EV_ABS X/Y and
the MT slot, position and tracking id), so a uinput device made from it passes every event on.
The kernel still drops repeated values and empty frames: of 72 000 frames played, 64 400 reach a
reader (prep_case.py predicts the exact counts)."""
import math
import sys

frames = int(sys.argv[1])
W, H = 3200, 2000
BTN_TOUCH = 0x14A
ABS_CODES = (0x00, 0x01, 0x2F, 0x35, 0x36, 0x39)  # X, Y, MT_SLOT, MT_POSITION_X/Y, MT_TRACKING_ID


def bitmask_lines(event_type, codes, size):
    """evemu's `B:` lines: the type's bitmask, 8 bytes a line."""
    mask = [0] * size
    for code in codes:
        mask[code // 8] |= 1 << (code % 8)
    return [f"B: {event_type:02x} " + " ".join(f"{b:02x}" for b in mask[i:i + 8]) for i in range(0, size, 8)]


head = ["# EVEMU 1.3", "N: Synthetic Bench Touchscreen", "I: 0018 0000 0000 0000", "P: 02 00 00 00 00 00 00 00"]
head += bitmask_lines(0x00, (0x00, 0x01, 0x03), 8)  # EV_SYN, EV_KEY, EV_ABS
head += bitmask_lines(0x01, (BTN_TOUCH,), 96)
head += bitmask_lines(0x02, (), 8)
head += bitmask_lines(0x03, ABS_CODES, 8)
for event_type in (0x04, 0x05, 0x11, 0x12):
    head += bitmask_lines(event_type, (), 8)
head += [f"A: 00 0 {W - 1} 0 0 10", f"A: 01 0 {H - 1} 0 0 10", "A: 2f 0 9 0 0 0",
         f"A: 35 0 {W - 1} 0 0 10", f"A: 36 0 {H - 1} 0 0 10", "A: 39 0 65535 0 0 0"]
print("\n".join(head))

t = 0.0
tracking_id = 0
out = []
w = out.append
active = {}
period = 180  # frames per group of fingers
for f in range(frames):
    phase = f % period
    group = f // period
    fingers = 1 + group % 10
    if phase == 0:
        for s in range(fingers):
            tracking_id += 1
            active[s] = tracking_id
            w(f"E: {t:.6f} 0003 002f {s}")
            w(f"E: {t:.6f} 0003 0039 {tracking_id}")
        w(f"E: {t:.6f} 0001 014a 1")
    if phase == period - 20:
        for s in list(active):
            w(f"E: {t:.6f} 0003 002f {s}")
            w(f"E: {t:.6f} 0003 0039 -1")
        active.clear()
        w(f"E: {t:.6f} 0001 014a 0")
    elif phase < period - 20:
        kind = group % 3
        for s in active:
            a = 2 * math.pi * s / max(1, fingers)
            r = 150 + (phase * 3 if kind == 1 else 0)
            rot = phase * 0.01 if kind == 2 else 0
            cx = W / 2 + (phase * 6 if kind == 0 else 0) - 500
            x = int(cx + r * math.cos(a + rot))
            y = int(H / 2 + r * math.sin(a + rot))
            w(f"E: {t:.6f} 0003 002f {s}")
            w(f"E: {t:.6f} 0003 0035 {max(0, min(W - 1, x))}")
            w(f"E: {t:.6f} 0003 0036 {max(0, min(H - 1, y))}")
    w(f"E: {t:.6f} 0000 0000 0000")
    t += 1 / 120
    if len(out) > 100000:
        print("\n".join(out))
        out.clear()
print("\n".join(out))
