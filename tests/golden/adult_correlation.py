#!/usr/bin/env python3
"""Expected correlation matrices on UCI Adult, computed independently of
anonlab (plain Python, exact fractions where the formula allows) for
tests/correlation_adult.rs.

Run from the repository root:
    python3 tests/golden/adult_correlation.py > tests/golden/adult_correlation.json

All 9 columns in the file's order. Definitions (as in src/stats/correlation/,
re-derived here from the papers, not from that code):

- A column is numeric when every value parses as a number (only age on Adult).
- A numeric column with more than BINS = 10 distinct values is cut into
  quantile bins: with the distinct values sorted, a value goes to bin
  floor(BINS * r / n), r = records with a smaller value, n = all records;
  empty bins vanish. Other columns: one category per value. Adult has no
  missing values, so the missing-value policy does not matter here.
- phi2 = (1 / (min(d1, d2) - 1)) * sum_ij (f_ij - f_i f_j)^2 / (f_i f_j)
  (refining-partition paper, Section IV), d = values that occur; summed over
  every cell of the table, empty ones included, as the paper writes it.
- cramer = sqrt(phi2).
- mi = sum_ij f_ij log2(f_ij / (f_i f_j)) in bits; nmi = mi / min(H1, H2).
- pearson: numeric pairs only (age with itself here).
"""
import csv
import json
import math
from collections import Counter
from fractions import Fraction

BINS = 10

with open("../shared/data/adult/adult.csv", newline="", encoding="utf-8") as f:
    reader = csv.reader(f, delimiter=";")
    header = next(reader)
    rows = [[v.strip() for v in r] for r in reader]
n = len(rows)


def is_number(v):
    try:
        return math.isfinite(float(v))
    except ValueError:
        return False


def categories(j):
    values = [r[j] for r in rows]
    if all(is_number(v) for v in values):
        counts = Counter(float(v) for v in values)
        distinct = sorted(counts)
        if len(distinct) > BINS:
            below, bin_of = 0, {}
            for v in distinct:
                bin_of[v] = BINS * below // n
                below += counts[v]
            used = sorted(set(bin_of.values()))
            dense = {b: i for i, b in enumerate(used)}
            bins = []
            for b in used:
                members = [v for v in distinct if bin_of[v] == b]
                bins.append({"from": members[0], "to": members[-1],
                             "records": sum(counts[v] for v in members)})
            return [dense[bin_of[float(v)]] for v in values], bins
        return [float(v) for v in values], []
    return values, []


cats, bins = {}, {}
for j, name in enumerate(header):
    cats[name], bins[name] = categories(j)


def table(a, b):
    joint = Counter(zip(cats[a], cats[b]))
    ra, rb = Counter(cats[a]), Counter(cats[b])
    return joint, ra, rb


def phi2(a, b):
    joint, ra, rb = table(a, b)
    d = min(len(ra), len(rb))
    if d < 2:
        return None
    s = Fraction(0)
    for x, nx in ra.items():
        for y, ny in rb.items():
            fij = Fraction(joint.get((x, y), 0), n)
            e = Fraction(nx, n) * Fraction(ny, n)
            s += (fij - e) ** 2 / e
    return float(s / (d - 1))


def entropy(c):
    return -sum(m / n * math.log2(m / n) for m in c.values())


def mi(a, b):
    joint, ra, rb = table(a, b)
    return sum(m / n * math.log2(m * n / (ra[x] * rb[y]))
               for (x, y), m in joint.items())


def nmi(a, b):
    _, ra, rb = table(a, b)
    h = min(entropy(ra), entropy(rb))
    return None if h <= 0 else mi(a, b) / h


def pearson(a, b):
    ja, jb = header.index(a), header.index(b)
    if not all(is_number(r[ja]) and is_number(r[jb]) for r in rows):
        return None
    x = [float(r[ja]) for r in rows]
    y = [float(r[jb]) for r in rows]
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((p - mx) * (q - my) for p, q in zip(x, y))
    sxx = sum((p - mx) ** 2 for p in x)
    syy = sum((q - my) ** 2 for q in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else None


measures = {
    "phi2": phi2,
    "cramer": lambda a, b: None if phi2(a, b) is None else math.sqrt(phi2(a, b)),
    "mi": mi,
    "nmi": nmi,
    "pearson": pearson,
}
out = {"rows": n, "columns": header, "bins": BINS,
       "age_bins": bins["age"], "matrices": {}}
for name, fn in measures.items():
    out["matrices"][name] = [[fn(a, b) for b in header] for a in header]
print(json.dumps(out, indent=1))
