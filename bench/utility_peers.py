"""Utility against the peers (issue 16): anonlab's Mondrian beside anonypy's
on the same Adult file, and anonlab's full-domain generalization beside
its own optimum found by exhaustion. Run by bench/run_utility.sh from a
temporary venv holding anonypy and pandas; never by the tests.

    python bench/utility_peers.py ADULT.csv --anonlab BIN --hierarchies DIR

For every row (QIs, k) of the issue's table, with occupation as the
sensitive column (anonypy's Preserver needs one; k-anonymity ignores it):

- anonypy 0.2.1: `Mondrian(df, QI, "occupation").partition(k)` and the
  generalized rows `anonypy.anonymize(...)` builds from it, timed in
  process (the two steps `Preserver.anonymize_k_anonymity` runs).
  Categorical QIs get pandas' 'category' dtype (anonypy splits those by
  value sets), age stays numeric (split at the median).
- anonlab: `anonymize -a mondrian` as a separate process, its in-process
  algorithm time (`time_ms` of --json) and its figures; the figures are
  recomputed here from the published CSV (-o), and the script fails if
  they differ from what anonlab printed.
- full-domain: `anonymize -a full-domain --metric dm` with the shared ARX
  hierarchies, no suppression, and the optimum by exhaustion: every node
  of the hierarchies' lattice is grouped here and the k-anonymous node
  with the smallest C_DM kept; the script fails if anonlab's C_DM is not
  that minimum.

Figures, the same definitions on every side (anonlab's metrics::utility):
groups; C_DM = sum of squared group sizes (nothing is suppressed here);
NCP = sum over rows and QIs of the cell's loss — numeric: (hi - lo) /
(column max - column min); categorical: (values in the cell - 1) / (values
of the column - 1) — and GCP = NCP / (rows x QIs).
"""
import argparse
import csv
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter

import anonypy
import pandas as pd

SENSITIVE = "occupation"
QI7 = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
QI6 = [q for q in QI7 if q != "age"]
ROWS = [(QI7, 2), (QI7, 5), (QI7, 10), (QI6, 2), (QI6, 100)]
NUMERIC = {"age"}


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.reader(f, delimiter=";")
        header = next(reader)
        return header, [r for r in reader if r]


class Domain:
    """Per QI: the range of a numeric column, the distinct values of a categorical one."""

    def __init__(self, header, rows, qi):
        self.qi = qi
        self.range = {}
        self.values = {}
        for q in qi:
            col = [r[header.index(q)] for r in rows]
            if q in NUMERIC:
                nums = [float(v) for v in col]
                self.range[q] = max(nums) - min(nums)
            self.values[q] = len(set(col))

    def ncp_numeric(self, q, lo, hi):
        return (hi - lo) / self.range[q] if self.range[q] else 0.0

    def ncp_set(self, q, size):
        m = self.values[q]
        return (size - 1) / (m - 1) if m > 1 else 0.0


def figures(groups, domain, n):
    """groups: list of (size, {qi: loss of the group's cell})."""
    cdm = sum(s * s for s, _ in groups)
    ncp = sum(s * sum(loss.values()) for s, loss in groups)
    return {"groups": len(groups), "cdm": cdm, "ncp": ncp, "gcp": ncp / (n * len(domain.qi))}


def anonypy_row(df, qi, k, domain):
    for c in qi + [SENSITIVE]:
        if c not in NUMERIC:
            df[c] = df[c].astype("category")
    start = time.perf_counter()
    m = anonypy.Mondrian(df, qi, SENSITIVE)
    parts = m.partition(k=k)
    anonypy.anonymize(df, parts, qi, SENSITIVE)
    elapsed = time.perf_counter() - start
    groups = []
    for p in parts:
        loss = {}
        for q in qi:
            vals = df.loc[p, q]
            if q in NUMERIC:
                loss[q] = domain.ncp_numeric(q, float(vals.min()), float(vals.max()))
            else:
                loss[q] = domain.ncp_set(q, vals.nunique())
        groups.append((len(p), loss))
    out = figures(groups, domain, len(df))
    out["ms"] = elapsed * 1e3
    out["smallest"] = min(len(p) for p in parts)
    return out


def published_groups(path, qi, domain, hierarchy=None):
    """Groups of an anonlab published CSV (its GID column) with each cell's
    loss, read from the published strings: [lo-hi], {a,b}, *, a value, or a
    hierarchy label (full-domain)."""
    cells = {}
    sizes = Counter()
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        for r in reader:
            g = r["GID"]
            sizes[g] += 1
            cells.setdefault(g, {q: r[q] for q in qi})
    groups = []
    for g, size in sizes.items():
        loss = {}
        for q in qi:
            v = cells[g][q]
            loss[q] = cell_loss(q, v, domain, hierarchy)
        groups.append((size, loss))
    return groups


def cell_loss(q, v, domain, hierarchy):
    if v == "*":
        return 1.0
    if hierarchy is not None and q in hierarchy and v in hierarchy[q]:
        leaves = hierarchy[q][v]
        if q in NUMERIC:
            nums = [float(x) for x in leaves]
            return domain.ncp_numeric(q, min(nums), max(nums))
        return domain.ncp_set(q, len(leaves))
    if v.startswith("{"):
        return domain.ncp_set(q, len(v[1:-1].split(",")))
    if q in NUMERIC and v.startswith("["):
        lo, hi = v[1:-1].split("-")
        return domain.ncp_numeric(q, float(lo), float(hi))
    return 0.0


def load_hierarchies(d, qi, header, rows):
    """Per QI: label -> the column's values under it (any level), and the
    per-level map leaf -> label, for the exhaustive lattice."""
    labels, levels = {}, {}
    for q in qi:
        present = set(r[header.index(q)] for r in rows)
        with open(os.path.join(d, f"adult_hierarchy_{q}.csv"), newline="") as f:
            h = [r for r in csv.reader(f, delimiter=";") if r]
        h = [r for r in h if r[0] in present]
        labels[q] = {}
        for r in h:
            for lab in r[1:]:
                labels[q].setdefault(lab, set()).add(r[0])
        levels[q] = [{r[0]: r[lv] for r in h} for lv in range(len(h[0]))]
    return labels, levels


def anonlab_run(binary, adult, qi, k, extra, tmp):
    out = os.path.join(tmp, "pub.csv")
    cmd = [binary, "anonymize", adult, "--qi", ",".join(qi), "--sensitive", SENSITIVE,
           "-k", str(k), "--queries", "0", "--json", "-o", out] + extra
    res = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(res.stdout), out, " ".join(cmd[1:])


def check(name, theirs, ours):
    if abs(theirs - ours) > 1e-6 * max(1.0, abs(ours)):
        sys.exit(f"{name}: anonlab printed {theirs}, recomputed from its published table {ours}")


def optimum(levels, header, rows, qi, k):
    """Smallest C_DM over the k-anonymous nodes of the lattice, by exhaustion."""
    tuples = Counter(tuple(r[header.index(q)] for q in qi) for r in rows)
    best = None
    heights = [range(len(levels[q])) for q in qi]
    for node in itertools.product(*heights):
        maps = [levels[q][lv] for q, lv in zip(qi, node)]
        classes = Counter()
        for t, c in tuples.items():
            classes[tuple(m[v] for m, v in zip(maps, t))] += c
        if min(classes.values()) < k:
            continue
        cdm = sum(c * c for c in classes.values())
        if best is None or cdm < best[0]:
            best = (cdm, node, len(classes))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--anonlab", required=True)
    ap.add_argument("--hierarchies", required=True)
    ap.add_argument("--rows", default=",".join(str(i) for i in range(len(ROWS))),
                    help="indexes into ROWS to run, comma-separated (default: all)")
    ap.add_argument("--no-optimum", action="store_true",
                    help="skip the exhaustive lattice search (full-domain is then not checked)")
    a = ap.parse_args()
    rows_to_run = [ROWS[int(i)] for i in a.rows.split(",")]

    header, rows = read_rows(a.csv)
    n = len(rows)
    print(f"anonypy {getattr(anonypy, '__version__', '0.2.1')}, pandas {pd.__version__}; "
          f"{n} rows, sensitive {SENSITIVE}\n")
    table = []
    with tempfile.TemporaryDirectory() as tmp:
        for qi, k in rows_to_run:
            domain = Domain(header, rows, qi)
            labels, levels = load_hierarchies(a.hierarchies, qi, header, rows)
            name = "QI7" if len(qi) == 7 else "QI7 without age"
            print(f"--- {name}, k = {k}", flush=True)

            js, pub, cmd = anonlab_run(a.anonlab, a.csv, qi, k, ["-a", "mondrian"], tmp)
            mine = figures(published_groups(pub, qi, domain), domain, n)
            u = js["utility"]
            check("mondrian C_DM", u["discernibility"], mine["cdm"])
            check("mondrian NCP", u["ncp"], mine["ncp"])
            check("mondrian groups", js["groups"], mine["groups"])
            mine["ms"] = js["time_ms"]
            print(f"anonlab {cmd}")

            df = pd.read_csv(a.csv, sep=";")
            peer = anonypy_row(df, qi, k, domain)
            print(f"anonypy Mondrian(df, QI, '{SENSITIVE}').partition(k={k}) + anonymize(...)")

            fjs, fpub, fcmd = anonlab_run(
                a.anonlab, a.csv, qi, k,
                ["-a", "full-domain", "--hierarchies", a.hierarchies, "--metric", "dm"], tmp)
            full = figures(published_groups(fpub, qi, domain, labels), domain, n)
            check("full-domain C_DM", fjs["utility"]["discernibility"], full["cdm"])
            check("full-domain NCP", fjs["utility"]["ncp"], full["ncp"])
            best = (full["cdm"], "not searched", full["groups"]) if a.no_optimum \
                else optimum(levels, header, rows, qi, k)
            if best[0] != full["cdm"]:
                sys.exit(f"full-domain C_DM {full['cdm']} is not the optimum {best[0]} (node {best[1]})")
            print(f"anonlab {fcmd}")
            print(f"exhaustive optimum: C_DM {best[0]:,} at levels {best[1]} ({best[2]} classes)",
                  flush=True)
            for who, f in (("anonlab mondrian", mine), ("anonypy mondrian", peer), ("full-domain", full)):
                print(f"  {who}: C_DM {f['cdm']:,}  NCP {f['ncp']:,.1f}  GCP {f['gcp']:.4f}  "
                      f"groups {f['groups']:,}" + (f"  ms {f['ms']:.1f}" if "ms" in f else ""), flush=True)
            print(flush=True)
            table.append((name, k, mine, peer, full, best))

    print("| QIs | k | C_DM anonlab Mondrian | C_DM anonypy | C_DM full-domain (= exhaustive optimum) "
          "| NCP anonlab | NCP anonypy | NCP full-domain | groups anonlab / anonypy / full-domain "
          "| ms anonlab / anonypy |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worse = []
    for name, k, mine, peer, full, best in table:
        print(f"| {name} | {k} | **{mine['cdm']:,}** | {peer['cdm']:,} | {full['cdm']:,} (= {best[0]:,}) "
              f"| **{mine['ncp']:,.1f}** (GCP {mine['gcp']:.4f}) | {peer['ncp']:,.1f} (GCP {peer['gcp']:.4f}) "
              f"| {full['ncp']:,.1f} (GCP {full['gcp']:.4f}) "
              f"| {mine['groups']:,} / {peer['groups']:,} / {full['groups']:,} "
              f"| {mine['ms']:.1f} / {peer['ms']:,.0f} |")
        for what in ("cdm", "ncp"):
            if mine[what] > peer[what] or mine[what] >= full[what]:
                worse.append(f"{name} k={k} {what}")
    if worse:
        print("\nanonlab's Mondrian is NOT at or below anonypy's and below full-domain's on: "
              + ", ".join(worse))
        sys.exit(1)
    print("\nanonlab's Mondrian: C_DM and NCP at or below anonypy's and below full-domain's on every row.")


if __name__ == "__main__":
    main()
