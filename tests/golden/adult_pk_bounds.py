#!/usr/bin/env python3
"""Independent derivation of the p-sensitive necessary conditions on Adult.

Setting (tests/pk_adult.rs, adult_max_clusters_match_the_independent_derivation):
the whole Adult file; sensitive attribute sets {education, occupation} (the
paper's experiment without education_num, which the ARX copy of Adult lacks)
and {education, occupation, salary-class} (the issue's set).

Plain Python, no anonlab code: count each sensitive attribute's values,
sort the counts descending, cumulate them (cf^j_i, saturating at n past the
last value), take cf_i = max over the attributes, and for p = 1..16
maxClusters = min over i = 1..p of floor((n - cf_{p-i}) / i), with iValue
the smallest i attaining it (the p-sensitive paper, Section 2.2, Condition 2;
Condition 1 fails exactly when maxClusters = 0).

Run from the crate root:
    python3 tests/golden/adult_pk_bounds.py > tests/golden/adult_pk_bounds.json
"""
import csv
import json
import os
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ADULT = os.path.join(HERE, "..", "..", "..", "shared", "data", "adult", "adult.csv")
SETS = [["education", "occupation"], ["education", "occupation", "salary-class"]]


def main():
    with open(ADULT, newline="") as f:
        rows = list(csv.DictReader(f, delimiter=";"))
    n = len(rows)
    out = {"rows": n, "sets": []}
    for attrs in SETS:
        desc = {a: sorted(Counter(r[a] for r in rows).values(), reverse=True) for a in attrs}

        def cf(i):
            return max(sum(desc[a][:i]) for a in attrs)

        bounds = []
        for p in range(1, 17):
            best, ival = None, None
            for i in range(1, p + 1):
                m = (n - cf(p - i)) // i
                if best is None or m < best:
                    best, ival = m, i
            bounds.append({"p": p, "max_clusters": best, "i_value": ival})
        out["sets"].append({
            "sensitive": attrs,
            "distinct": {a: len(desc[a]) for a in attrs},
            "bounds": bounds,
        })
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
