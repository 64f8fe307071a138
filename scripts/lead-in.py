#!/usr/bin/env python3
"""An evemu recording behind a lead-in, for the tests that need the panel quiet before the first
gesture: one palm contact at 0 (a 900-wide touch of tool type 2, lifted after 50 ms: no recognizer
accepts it, so no gesture, but the panel has been touched), nothing until AFTER seconds, then the
recording's events PASSES times (default 1), EVERY seconds apart.

usage: scripts/lead-in.py SOURCE TARGET AFTER [PASSES EVERY]
"""
import sys

source, target, after = sys.argv[1], sys.argv[2], float(sys.argv[3])
passes, every = (int(sys.argv[4]), float(sys.argv[5])) if len(sys.argv) > 5 else (1, 0.0)
lines = open(source).read().splitlines()
header = [l for l in lines if not l.startswith("E: ")]
events = [l for l in lines if l.startswith("E: ")]
out = ["E: 0.000000 0003 002f 0", "E: 0.000000 0003 0039 900", "E: 0.000000 0003 0037 2",
       "E: 0.000000 0003 0035 1000", "E: 0.000000 0003 0036 1000", "E: 0.000000 0001 014a 1",
       "E: 0.000000 0000 0000 0", "E: 0.050000 0003 0039 -1", "E: 0.050000 0001 014a 0",
       "E: 0.050000 0000 0000 0"]
for n in range(passes):
    for l in events:
        _, t, rest = l.split(" ", 2)
        out.append("E: %.6f %s" % (float(t) + after + every * n, rest))
open(target, "w").write("\n".join(header + out) + "\n")
