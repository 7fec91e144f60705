#!/usr/bin/env python3
"""Expected "before" figures on UCI Adult for an attacker facing hidden cells,
computed independently of anonlab (plain Python, exact fractions, no shared
code and no anonlab binary) for tests/golden_hidden.rs.

Run from the repository root:
    python3 tests/golden/adult_hidden_linkage.py > tests/golden/adult_hidden_linkage.json

The session with hidden cells: quasi-identifiers sex, race, marital-status,
education, native-country, workclass; age semi-sensitive, its cells
sensitive where age >= 60 (hidden from the attacker); occupation sensitive.
The attacker knows the seven attributes sex, age, race, marital-status,
education, native-country, workclass.

The matching rule is README's "How semi-sensitive cells are matched": a
record r is matched by every record s that agrees with it on each known
attribute where neither cell is hidden (r itself included). On the
original table published as is, the key count and the linkage attack both
give Pr(re-id of r) = 1 / matches(r). The breach probability of r's
occupation is the share of r's matches that have r's occupation.
A record is "above" the threshold 0.2 when its probability is strictly
greater; "certain" when it is 1.
"""
import csv
import json
from collections import Counter, defaultdict
from fractions import Fraction

KNOWN = ["sex", "age", "race", "marital-status", "education",
         "native-country", "workclass"]
OTHERS = [a for a in KNOWN if a != "age"]
SENSITIVE = "occupation"
THRESHOLD = Fraction(1, 5)

with open("../shared/data/adult/adult.csv", newline="", encoding="utf-8") as f:
    rows = [{k: v.strip() for k, v in r.items()}
            for r in csv.DictReader(f, delimiter=";")]

def hidden(r):
    return int(r["age"]) >= 60

# Per key of the six fully known attributes: visible ages, hidden records,
# and the same split by occupation.
visible_age = defaultdict(Counter)
hidden_count = Counter()
visible_age_occ = defaultdict(Counter)
hidden_occ = defaultdict(Counter)
everyone_occ = defaultdict(Counter)
everyone = Counter()
for r in rows:
    key = tuple(r[a] for a in OTHERS)
    everyone[key] += 1
    everyone_occ[key][r[SENSITIVE]] += 1
    if hidden(r):
        hidden_count[key] += 1
        hidden_occ[key][r[SENSITIVE]] += 1
    else:
        visible_age[key][r["age"]] += 1
        visible_age_occ[key][(r["age"], r[SENSITIVE])] += 1

reid = []
breach = []
for r in rows:
    key = tuple(r[a] for a in OTHERS)
    occ = r[SENSITIVE]
    if hidden(r):
        matches = everyone[key]
        same = everyone_occ[key][occ]
    else:
        matches = visible_age[key][r["age"]] + hidden_count[key]
        same = visible_age_occ[key][(r["age"], occ)] + hidden_occ[key][occ]
    reid.append(Fraction(1, matches))
    breach.append(Fraction(same, matches))

def figures(ps):
    n = len(ps)
    return {
        "records": n,
        "mean": float(sum(ps) / n),
        "max": float(max(ps)),
        "certain": sum(1 for p in ps if p == 1),
        "above_0_2": sum(1 for p in ps if p > THRESHOLD),
    }

plain = Counter(tuple(r[a] for a in KNOWN) for r in rows)

print(json.dumps({
    "rows": len(rows),
    "hidden_cells": sum(1 for r in rows if hidden(r)),
    "known": KNOWN,
    "linkage": figures(reid),
    "breach": figures(breach),
    # Without hiding anything: what the issue saw the Risk screen print.
    "linkage_nothing_hidden": figures([Fraction(1, plain[tuple(r[a] for a in KNOWN)])
                                       for r in rows]),
}, indent=1))
