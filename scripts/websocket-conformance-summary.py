#!/usr/bin/env python3
"""Summarises an Autobahn fuzzing-client report on gestured's WebSocket endpoint
(scripts/websocket-conformance.sh; docs/TESTING.md, "WebSocket conformance").

Autobahn tests an echo server: most cases send messages and expect them back. gestured's endpoint
is not one — it sends `hello` first and answers each message as a request (an `error` for
"Hello, world!") — so Autobahn marks those cases FAILED for their messages alone. This summary
judges each case on what the RFC governs: the frames other than messages (pongs, close frames)
and the closing behaviour, Autobahn's own verdict on the latter (`behaviorClose`) included. The
messages are compared only for being messages; their content is the protocol's business.

Verdicts, per case:
  ok            Autobahn says OK, NON-STRICT or INFORMATIONAL, or it failed the case only for the
                messages (the rest of what was received is one of the expected outcomes, and
                the close is right)
  limit         a message longer than max_line_bytes (65536) — the endpoint answers line-too-long
                and closes with 1009 — or in more than 256 fragments — close 1002
                (docs/PROTOCOL.md §13), where an echo server would echo
  unimplemented compression (cases 12 and 13): the endpoint offers no extension
  failed        anything else: a defect, or a refusal not yet documented

Prints a table per category and the failed cases; exits 1 when any case failed.
"""
import collections
import json
import os
import sys

CATEGORIES = {
    "1": "framing", "2": "pings and pongs", "3": "reserved bits", "4": "opcodes", "5": "fragmentation",
    "6": "UTF-8 handling", "7": "close handling", "9": "limits and performance", "10": "auto-fragmentation",
    "12": "compression (payloads)", "13": "compression (parameters)",
}

def without_messages(events):
    return [e for e in events if e[0] != "message"]


def verdict(case):
    behaviour, close = case["behavior"], case["behaviorClose"]
    code, reason = case.get("remoteCloseCode"), case.get("remoteCloseReason") or ""
    if behaviour == "UNIMPLEMENTED":
        return "unimplemented", "no extension offered"
    if behaviour in ("OK", "NON-STRICT", "INFORMATIONAL") and close in ("OK", "INFORMATIONAL"):
        return "ok", behaviour
    # The endpoint's own limits, and only them: the close frame says which.
    if code == 1009 and reason == "message too big":
        return "limit", "a message over max_line_bytes: line-too-long, then close 1009"
    if code == 1002 and reason.startswith("at most 256 fragments"):
        return "limit", "more than 256 fragments in one message: close 1002"
    received = without_messages(case["received"])
    if close in ("OK", "INFORMATIONAL"):
        # Cases with a list of outcomes: what was received but messages is one of them.
        # Cases that check the echo in their own code (9.x, 12.x, 13.x) list none: nothing but
        # messages may have been received.
        outcomes = [without_messages(events) for events in case["expected"].values()] or [[]]
        if received in outcomes:
            return "ok", "answered, not echoed"
    return "failed", f"{behaviour}/{close}: {case['result']} {case.get('resultClose', '')}".strip()


def main():
    reports = sys.argv[1]
    index = json.load(open(os.path.join(reports, "index.json")))
    agent, cases = next(iter(index.items()))
    by_category = collections.defaultdict(collections.Counter)
    failures = []
    for case_id in sorted(cases, key=lambda c: [int(p) for p in c.split(".")]):
        report = json.load(open(os.path.join(reports, cases[case_id]["reportfile"])))
        kind, why = verdict(report)
        by_category[case_id.split(".")[0]][kind] += 1
        if kind == "failed":
            failures.append((case_id, report["description"], why))
    kinds = ["ok", "limit", "unimplemented", "failed"]
    print(f"Autobahn fuzzing client against {agent}: {len(cases)} cases")
    print(f"| {'category':<28} | " + " | ".join(f"{k:>13}" for k in kinds) + " |")
    print(f"|{'-' * 30}|" + "|".join("-" * 15 for _ in kinds) + "|")
    total = collections.Counter()
    for category in sorted(by_category, key=int):
        counts = by_category[category]
        total += counts
        name = f"{category} {CATEGORIES.get(category, '')}"
        print(f"| {name:<28} | " + " | ".join(f"{counts[k]:>13}" for k in kinds) + " |")
    print(f"| {'all':<28} | " + " | ".join(f"{total[k]:>13}" for k in kinds) + " |")
    for case_id, description, why in failures:
        print(f"FAILED {case_id}: {description} — {why}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
