"""Issue 17's measures beside the peers, one run, same file (Adult).

Run by bench/run_risk_peers.sh (never by the tests):

    python risk_peers.py ADULT.csv --anonlab BIN [--arx-classpath CP]

For the 8 and the first 4 of Adult's quasi-identifiers and sampling
fractions 0.01, 0.1 and 0.5, `anonlab assess --json` beside:

- ARX (its public API, driven by bench/arx/RiskPeers.java, compiled here
  against the ARX build --arx-classpath names): prosecutor mean / max /
  records at the max, sample uniques, Pitman, Zayatz, SNB, Dankar's rule
  and its pick, and the attribute risks (distinction, separation) of every
  combination. ARX reports a model without an estimate as 0.
- pycanon (PyPI): k-anonymity, i.e. the prosecutor's max = 1 / k.
- sdcMicro (R): run when `Rscript -e 'library(sdcMicro)'` works; said
  plainly when it does not.

Each figure is printed with the largest relative difference; the script
exits non-zero when a figure both tools compute differs by more than 1e-6
(relative), except where ARX has no estimate (0) or where Dankar's rule
falls back differently because of that (BENCHMARKS.md, issue 17).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

QI8 = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]
FRACTIONS = [0.01, 0.1, 0.5]
TOL = 1e-6


def rel(a, b):
    if a is None or b is None:
        return None
    scale = max(abs(a), abs(b))
    return 0.0 if scale == 0 else abs(a - b) / scale


def anonlab_assess(binary, csv, qis, f, attribute_risks):
    args = [binary, "assess", csv, "--qi", ",".join(qis), "--sampling-fraction", str(f), "--json"]
    if attribute_risks:
        args.append("--attribute-risks")
    t = time.perf_counter()
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out), (time.perf_counter() - t) * 1e3


def arx_run(classpath, csv, qis):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "arx", "RiskPeers.java")
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(src, d)
        subprocess.run(["javac", "-cp", classpath, "-d", d, os.path.join(d, "RiskPeers.java")], check=True)
        t = time.perf_counter()
        out = subprocess.run(
            ["java", "-cp", classpath + os.pathsep + d, "RiskPeers", csv, ";", ",".join(qis),
             ",".join(str(f) for f in FRACTIONS)],
            check=True, capture_output=True, text=True,
        ).stdout
        return json.loads(out), (time.perf_counter() - t) * 1e3


def pycanon_k(csv, qis):
    try:
        import pandas as pd
        from pycanon import anonymity
    except ImportError as e:
        return None, f"pycanon not importable ({e})"
    df = pd.read_csv(csv, sep=";", dtype=str, skipinitialspace=True)
    t = time.perf_counter()
    k = anonymity.k_anonymity(df, qis)
    return (int(k), (time.perf_counter() - t) * 1e3), None


def sdcmicro_status():
    if shutil.which("Rscript") is None:
        return "R is not installed"
    r = subprocess.run(["Rscript", "-e", "library(sdcMicro)"], capture_output=True, text=True)
    if r.returncode != 0:
        return "R is installed but sdcMicro is not: " + r.stderr.strip().splitlines()[-1]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--anonlab", required=True)
    ap.add_argument("--arx-classpath")
    a = ap.parse_args()
    bad = []

    sdc = sdcmicro_status()
    print("sdcMicro:", "available" if sdc is None else f"not run — {sdc}")
    if sdc is None:
        print("  (sdcMicro is installed; this script does not drive it yet)")
    print()

    for k in (8, 4):
        qis = QI8[:k]
        print(f"### {k} QIs: {', '.join(qis)}\n")
        ours = {}
        for i, f in enumerate(FRACTIONS):
            ours[f] = anonlab_assess(a.anonlab, a.csv, qis, f, attribute_risks=(i == 0))
        arx = arx_run(a.arx_classpath, a.csv, qis) if a.arx_classpath else None
        pc, why = pycanon_k(a.csv, qis)

        k_ours = ours[FRACTIONS[0]][0]["k"]
        if pc:
            ok = pc[0] == k_ours
            print(f"k-anonymity: anonlab {k_ours}, pycanon {pc[0]} ({pc[1]:.1f} ms in process) — "
                  f"{'same' if ok else 'DIFFERENT'}; prosecutor max = 1/k = {1 / k_ours:.6g}\n")
            if not ok:
                bad.append(f"{k} QIs: k anonlab {k_ours} pycanon {pc[0]}")
        else:
            print(f"k-anonymity: anonlab {k_ours}; pycanon not run — {why}\n")

        print("| F | figure | anonlab | ARX | rel. diff. | |")
        print("|---|---|---:|---:|---:|---|")
        for f in FRACTIONS:
            j, ms = ours[f]
            p = j["population"]
            u = p["population_uniques"]
            x = None
            if arx:
                x = next(r for r in arx[0]["fractions"] if abs(r["f"] - f) < 1e-12)
            rows = [
                ("population size", p["population_size"], x and x["population_size"]),
                ("prosecutor mean", p["prosecutor"]["mean"], x and x["prosecutor_mean"]),
                ("prosecutor max", p["prosecutor"]["max"], x and x["prosecutor_max"]),
                ("records at the max", p["prosecutor"]["records_at_max"], x and x["records_at_max"]),
                ("sample uniques", p["sample_uniques"], x and x["sample_uniques"]),
                ("Pitman", u["pitman"], x and x["pitman"]),
                ("Zayatz", u["zayatz"], x and x["zayatz"]),
                ("SNB", u["snb"], x and x["snb"]),
                ("Dankar", u["dankar"], x and x["dankar"]),
            ]
            for name, ov, xv in rows:
                d = rel(ov, xv)
                note = ""
                if xv is None:
                    note = "ARX not run" if not arx else "no figure"
                elif name == "SNB" and xv == 0 and ov is not None:
                    note = "ARX: no estimate (its NaN; BENCHMARKS.md)"
                    d = None
                elif name == "Dankar" and x and x["dankar_model"].lower() != (u["dankar_model"] or ""):
                    note = f"pick: ARX {x['dankar_model'].lower()}, anonlab {u['dankar_model']} (ARX lacks SNB)"
                    d = None
                elif d is not None and d > TOL:
                    note = "**DIFFERENT**"
                    bad.append(f"{k} QIs F={f} {name}: anonlab {ov} ARX {xv}")
                elif d is not None:
                    note = "agree"
                fmt = lambda v: "none" if v is None else f"{v:.12g}"
                print(f"| {f} | {name} | {fmt(ov)} | {fmt(xv)} | {'' if d is None else f'{d:.1e}'} | {note} |")
            if x:
                print(f"| {f} | time (anonlab whole process / ARX in process) | {ms:.0f} ms | {x['ms']:.1f} ms | | |")
        print()

        ar = ours[FRACTIONS[0]][0].get("attribute_risks") or []
        if arx:
            theirs = {tuple(r["attributes"]): r for r in arx[0]["attribute_risks"]}
            worst_d = worst_s = 0.0
            missing = 0
            for r in ar:
                t = theirs.get(tuple(sorted(r["attributes"])))
                if t is None:
                    missing += 1
                    continue
                worst_d = max(worst_d, abs(r["distinction"] - t["distinction"]))
                worst_s = max(worst_s, abs(r["separation"] - t["separation"]))
            ok = missing == 0 and len(ar) == len(theirs) and worst_d <= TOL and worst_s <= TOL
            print(f"Attribute risks: {len(ar)} combinations (anonlab) / {len(theirs)} (ARX, "
                  f"{arx[0]['attribute_risks_ms']:.0f} ms in process); max |Δ| distinction {worst_d:.1e}, "
                  f"separation {worst_s:.1e} — {'agree' if ok else 'DIFFERENT'}\n")
            if not ok:
                bad.append(f"{k} QIs attribute risks")
        else:
            print(f"Attribute risks: {len(ar)} combinations (anonlab); ARX not run\n")

    if bad:
        print("FAILED:", *bad, sep="\n  ")
        sys.exit(1)
    print("Every figure both sides compute agrees within 1e-6 (relative).")


if __name__ == "__main__":
    main()
