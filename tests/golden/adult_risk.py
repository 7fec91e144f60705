#!/usr/bin/env python3
"""Expected re-identification figures on UCI Adult, computed independently
of anonlab (plain Python dictionaries, no shared code) for tests/golden_adult.rs.

Run from the repository root:  python3 tests/golden/adult_risk.py > tests/golden/adult_risk.json

Attacker knows the 8 attributes other than salary-class, in the file's order
(sex, age, race, marital-status, education, native-country, workclass,
occupation). Pr(re-id) of a record = 1 / (records with the same values);
histogram bins are (i/10, (i+1)/10], right-closed; a record is "above" the
threshold 0.2 when its Pr(re-id) is strictly greater.
"""
import csv
import json
from collections import Counter
from fractions import Fraction

ORDER = ["sex", "age", "race", "marital-status", "education",
         "native-country", "workclass", "occupation"]

with open("../shared/data/adult/adult.csv", newline="", encoding="utf-8") as f:
    rows = list(csv.DictReader(f, delimiter=";"))

def groups(attrs):
    return Counter(tuple(r[a].strip() for a in attrs) for r in rows)

full = groups(ORDER)
n = len(rows)
sizes = [full[tuple(r[a].strip() for a in ORDER)] for r in rows]
hist = [0] * 10
for s in sizes:
    p = Fraction(1, s)
    b = next(i for i in range(10) if p <= Fraction(i + 1, 10))
    hist[b] += 1
prefix = []
for j in range(1, len(ORDER) + 1):
    g = groups(ORDER[:j])
    prefix.append({"attributes": ORDER[:j], "classes": len(g),
                   "uniques": sum(1 for c in g.values() if c == 1)})
print(json.dumps({
    "rows": n,
    "classes": len(full),
    "k": min(full.values()),
    "uniques": sum(1 for c in full.values() if c == 1),
    "mean": sum(1.0 / s for s in sizes) / n,
    "records_above_0_2": sum(1 for s in sizes if Fraction(1, s) > Fraction(1, 5)),
    "histogram": hist,
    "prefix": prefix,
}, indent=1))
