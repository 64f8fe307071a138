#!/usr/bin/env python3
"""`gestured listen` JSON lines (stdin) -> the peer report's tokens (<n>f-<DIR>), one a line.

Each recognized swipe gives its finger count and direction. When the client also followed pans
(`run-peer.sh --listen '--kind swipe --kind pan'`) and no swipe was recognized, each ended pan
gives the direction of its translation instead (lisgd reports every stroke as a swipe, so a slow
drag counts through its pan). Other kinds give nothing."""
import json, math, sys
DIR = {'right': 'LR', 'left': 'RL', 'up': 'DU', 'down': 'UD', 'up-right': 'DLUR',
       'up-left': 'DRUL', 'down-left': 'URDL', 'down-right': 'ULDR'}
SECTORS = ['LR', 'ULDR', 'UD', 'URDL', 'RL', 'DRUL', 'DU', 'DLUR']  # 0 deg right, y down
swipes, pans, peak = [], [], 0
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get('type') != 'gesture': continue
    if m.get('kind') == 'swipe' and m.get('state') == 'recognized':
        swipes.append(f"{m['fingers']}f-{DIR.get(m.get('direction'), '?')}")
    elif m.get('kind') == 'pan' and m.get('state') in ('began', 'changed'):
        peak = max(peak if m['state'] == 'changed' else 0, m['fingers'])
    elif m.get('kind') == 'pan' and m.get('state') == 'ended':
        t = m.get('translation_mm') or m.get('translation') or {}
        x, y = t.get('x', 0), t.get('y', 0)
        if math.hypot(x, y) == 0: continue
        a = math.degrees(math.atan2(y, x)) % 360
        pans.append(f"{max(peak, m['fingers'])}f-{SECTORS[int((a + 22.5) // 45) % 8]}")
print('\n'.join(swipes or pans))
