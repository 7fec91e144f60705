"""pycanon on Adult: the privacy models anonlab reports, timed one by one.

Run by bench/run.sh with a venv that has pycanon (never by the tests).

    python pycanon_adult.py ADULT.csv [--anonlab REPORT.json] [--quiet]

Loads the file with pandas, then computes, for salary-class with the eight
quasi-identifiers of the foundation issue, each model anonlab's `assess`
reports: k-anonymity, distinct l, entropy l, recursive (c,l), t-closeness,
(alpha,k), delta-disclosure, basic and enhanced beta-likeness. Prints the
figure and the in-process time of each (interpreter start, imports and the
CSV read excluded, so the comparison with anonlab is honest) and, with
--anonlab, anonlab's figure beside it and whether they agree.

What "agree" means follows DESIGN.md's paragraph on pycanon 1.3.5: k,
distinct l, t-closeness, alpha and basic beta are compared as numbers;
entropy l as pycanon's floor(exp(H_min)) against floor(anonlab's exp(H_min));
delta against anonlab's `delta_disclosure_present_only` (pycanon skips
values absent from a class). Recursive (c,l) and enhanced beta are known
deviations: shown, not compared. --quiet prints nothing (for hyperfine).
"""

import argparse
import json
import math
import sys
import time

import pandas as pd
import pycanon
from pycanon import anonymity

QI = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]
SA = ["salary-class"]


def timed(f):
    start = time.perf_counter()
    value = f()
    return value, time.perf_counter() - start


def run(data):
    """(name, pycanon value, seconds) for each model, in anonlab's order."""
    rows = []
    for name, f in [
        ("k-anonymity k", lambda: anonymity.k_anonymity(data, QI)),
        ("distinct l", lambda: anonymity.l_diversity(data, QI, SA)),
        ("entropy l", lambda: anonymity.entropy_l_diversity(data, QI, SA)),
        ("recursive (c,l)", lambda: anonymity.recursive_c_l_diversity(data, QI, SA)),
        ("t-closeness t", lambda: anonymity.t_closeness(data, QI, SA)),
        ("(alpha,k)", lambda: anonymity.alpha_k_anonymity(data, QI, SA)),
        ("delta-disclosure", lambda: anonymity.delta_disclosure(data, QI, SA)),
        ("basic beta", lambda: anonymity.basic_beta_likeness(data, QI, SA)),
        ("enhanced beta", lambda: anonymity.enhanced_beta_likeness(data, QI, SA)),
    ]:
        value, seconds = timed(f)
        rows.append((name, value, seconds))
    return rows


def close(a, b):
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)


def anonlab_side(name, value, m):
    """anonlab's figure for a model and whether pycanon's agrees with it
    (None: a known deviation, not compared)."""
    if name == "k-anonymity k":
        return m["k"], value == m["k"]
    if name == "distinct l":
        return m["l_distinct"], value == m["l_distinct"]
    if name == "entropy l":
        mine = math.floor(m["l_entropy"])
        return f"exp(H)={m['l_entropy']:.6f}, floor {mine}", value == mine
    if name == "recursive (c,l)":
        c = m["recursive_c_l"]
        return f"({c['c']},{c['l']})", None
    if name == "t-closeness t":
        return m["t_closeness"], close(value, m["t_closeness"])
    if name == "(alpha,k)":
        a = m["alpha_k"]
        return f"({a['alpha']},{a['k']})", close(value[0], a["alpha"]) and value[1] == a["k"]
    if name == "delta-disclosure":
        d = m["delta_disclosure_present_only"]
        return f"{d} (present values; full: {m['delta_disclosure']})", close(value, d)
    if name == "basic beta":
        return m["beta_likeness_basic"], close(value, m["beta_likeness_basic"])
    if name == "enhanced beta":
        return m["beta_likeness_enhanced"], None
    raise KeyError(name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--anonlab", help="anonlab assess --json output on the same file")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()

    data, load_s = timed(lambda: pd.read_csv(args.csv, sep=";"))
    rows = run(data)
    if args.quiet:
        return 0
    compute = sum(s for _, _, s in rows)
    print(f"pycanon {pycanon.__version__}, pandas {pd.__version__}, "
          f"{len(data)} rows, QI {','.join(QI)}, sensitive {SA[0]}")
    print(f"CSV read (pandas): {load_s * 1e3:.1f} ms; "
          f"models (in-process, sum): {compute:.3f} s")
    m = None
    if args.anonlab:
        with open(args.anonlab) as f:
            m = json.load(f)["models"][SA[0]]
    print()
    print("| model | pycanon | pycanon time | anonlab | agree |")
    print("|---|---|---:|---|---|")
    mismatches = 0
    for name, value, seconds in rows:
        mine, agree = anonlab_side(name, value, m) if m else ("", None)
        if agree is False:
            mismatches += 1
        verdict = {True: "yes", False: "NO", None: "known deviation" if m else ""}[agree]
        print(f"| {name} | {value} | {seconds * 1e3:.1f} ms | {mine} | {verdict} |")
    print(f"| all models | | {compute * 1e3:.1f} ms | | |")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
