#!/usr/bin/env python3
"""Expected individual and household risk on sdcMicro's `testdata`, computed
from the formulas, independently of anonlab and of sdcMicro (plain Python,
40-digit arithmetic with mpmath), for the golden test of issue 33
(household risk with sampling weights).

Run from the repository root (needs mpmath):
    python3 tests/golden/sdcmicro_testdata_household.py > tests/golden/sdcmicro_testdata_household.json

The data: tests/data/sdcmicro/testdata.csv (sdcMicro 5.8.1's `testdata`,
4,580 people in 1,000 households; NOTICE.md there). Weights
`sampling_weight`, households `ori_hid`. Two key-variable sets: the five of
sdcMicro's own `measure_risk` example and the seven of its
`localSuppression` example. No key cell is missing in this file, so the
matching rule for missing cells does not come into it.

The formulas (Benedetti & Franconi's individual risk as sdcMicro's
`indivRisk(method = "approx")` states it; the SDC Practice Guide, "Individual
risk"; the Handbook on SDC, 3.3.5 "household risk"):

- f_k: the number of records sharing record r's key; F_k: the sum of their
  sampling weights; p_k = f_k / F_k.
- r = p/(1-p) * ln(1/p)                      when f_k = 1,
  r = p/(1-p) - (p/(1-p))^2 * ln(1/p)        when f_k = 2,
  r = p / (f_k - (1 - p))                     when f_k > 2,
  r = 1/f_k                                   when f_k = F_k (weights of 1).
- Expected re-identifications: the sum of r over the records; global risk:
  that sum over the number of records.
- Household risk of a household h: 1 - prod over its members (1 - r_i),
  the probability that at least one member is re-identified, which
  re-identifies them all; every member carries it. Expected
  re-identifications through households: the sum over records of their
  household's risk; its share of the records is the global household risk.
"""
import csv
import json
from collections import Counter, defaultdict

import mpmath as mp

mp.mp.dps = 40
PATH = "tests/data/sdcmicro/testdata.csv"
WEIGHT = "sampling_weight"
HOUSEHOLD = "ori_hid"
KEY_SETS = {
    "measure_risk_example": ["urbrur", "roof", "walls", "water", "sex"],
    "local_suppression_example": ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"],
}
THRESHOLDS = ["0.01", "0.05", "0.1", "0.2"]
FIRST = 12

with open(PATH, newline="", encoding="utf-8") as f:
    rows = list(csv.DictReader(f))
n = len(rows)


def individual(keys):
    key = [tuple(r[k] for k in keys) for r in rows]
    f_k = Counter(key)
    big_f = defaultdict(lambda: mp.mpf(0))
    for r, k in zip(rows, key):
        big_f[k] += mp.mpf(r[WEIGHT])
    out = []
    for k in key:
        fk = f_k[k]
        Fk = big_f[k]
        if Fk == fk:
            out.append(mp.mpf(1) / fk)
            continue
        p = mp.mpf(fk) / Fk
        q = p / (1 - p)
        if fk == 1:
            out.append(q * mp.log(1 / p))
        elif fk == 2:
            out.append(q - q * q * mp.log(1 / p))
        else:
            out.append(p / (fk - (1 - p)))
    return out, len(f_k)


def household(risk):
    members = defaultdict(list)
    for i, r in enumerate(rows):
        members[r[HOUSEHOLD]].append(i)
    by_household = {}
    for h, idx in members.items():
        safe = mp.mpf(1)
        for i in idx:
            safe *= 1 - risk[i]
        by_household[h] = 1 - safe
    return [by_household[r[HOUSEHOLD]] for r in rows], members


def summary(values):
    return {
        "expected_reidentifications": float(mp.fsum(values)),
        "global_risk": float(mp.fsum(values) / n),
        "max": float(max(values)),
        "sum_of_squares": float(mp.fsum(v * v for v in values)),
        "records_above": {t: sum(1 for v in values if v > mp.mpf(t)) for t in THRESHOLDS},
        "first_records": [float(v) for v in values[:FIRST]],
    }


settings = {}
for name, keys in KEY_SETS.items():
    risk, classes = individual(keys)
    hier, members = household(risk)
    by_size = defaultdict(list)
    for idx in members.values():
        by_size[len(idx)].extend(idx)
    settings[name] = {
        "keys": keys,
        "classes": classes,
        "individual": summary(risk),
        "household": summary(hier),
        "households": len(members),
        "by_household_size": {
            str(size): {
                "households": len(idx) // size,
                "records": len(idx),
                "mean_household_risk": float(mp.fsum(hier[i] for i in idx) / len(idx)),
            }
            for size, idx in sorted(by_size.items())
        },
        # Records whose own risk is at most the threshold but whose
        # household's is above it: at risk only through their household.
        "at_risk_only_through_household": {
            t: sum(1 for r, h in zip(risk, hier) if r <= mp.mpf(t) < h) for t in THRESHOLDS
        },
    }

print(json.dumps({
    "file": PATH,
    "rows": n,
    "weights": WEIGHT,
    "household": HOUSEHOLD,
    "method": "approx",
    "settings": settings,
}, indent=1))
