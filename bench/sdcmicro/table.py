#!/usr/bin/env python3
"""The markdown table of bench/sdcmicro/run.sh: one row per setting,
sdcMicro's and anonlab's suppressions side by side.
usage: table.py SDC.jsonl ANONLAB.jsonl"""
import json
import sys


def key(d):
    imp = d["importance"] if d["importance"] in ("default", "given") else "given"
    return (d["setting"], imp, int(d["k"]))


sdc = {key(d): d for d in map(json.loads, open(sys.argv[1]))}
ours = {key(d): d for d in map(json.loads, open(sys.argv[2]))}
print("| setting | importance | k | sdcMicro total (per key) | k-anon | s | anonlab total (per key) | verified / freqCalc | s |")
print("|---|---|---|---|---|---|---|---|---|")
for kk in sorted(set(sdc) | set(ours), key=lambda t: (t[0], t[1], t[2])):
    a, b = sdc.get(kk, {}), ours.get(kk, {})
    def cells(d):
        if "total" not in d:
            return "stopped: " + d.get("stopped", "not run")[:60]
        return f"**{d['total']}** ({', '.join(str(v) for v in d['suppressed'].values())})"
    print(f"| {kk[0]} | {kk[1]} | {kk[2]} | {cells(a)} | {a.get('k_anonymous', '')} | {a.get('seconds', 0):.2f} "
          f"| {cells(b)} | {b.get('verified', '')} / {b.get('k_anonymous_by_freqCalc', '')} | {b.get('seconds', 0):.2f} |")
