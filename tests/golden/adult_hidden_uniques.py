#!/usr/bin/env python3
"""Expected "unique" figures on UCI Adult for an attacker facing hidden
cells, computed independently of anonlab (plain Python, exact fractions for
the matching, no shared code and no anonlab binary) for
tests/golden_hidden.rs (issue 32, item 2: one rule for hidden cells).

Run from the repository root (needs mpmath):
    python3 tests/golden/adult_hidden_uniques.py > tests/golden/adult_hidden_uniques.json

The session of issue 32: quasi-identifiers sex, race, marital-status,
education, native-country, workclass; age semi-sensitive, its cells
sensitive (hidden from the attacker) where age >= 60; the attacker knows
the six attributes sex, age, race, marital-status, education,
native-country (workclass unticked); the file a 1 % sample of its
population (`:population 0.01`); SUDA up to MSUs of 4 attributes.

The one rule (README, "How semi-sensitive cells are matched"): a record r
is matched by every record s that agrees with it on each known attribute
where neither cell is hidden (r itself included). On a combination S of
the known attributes, matches(r, S) counts the records agreeing with r on
every attribute of S where neither cell is hidden. Then:

- r is a sample unique (on S) when matches(r, S) = 1;
- its sample frequency is f(r) = matches(r, all six); the journalist's
  risk without a population table is E[1/F | f] with F - f negative
  binomial(f, p = 0.01), summed term by term at 40 digits; its maximum and
  the records at it;
- r's MSUs are the combinations S of at most 4 attributes on which r is
  unique and on no S minus one attribute (the empty set singles nobody
  out); counted by size 1..4, and the records with at least one;
- attribute-combination uniques: for every non-empty S, the records
  unique on S.

Also written: the figures of the other reading, where a hidden cell is a
value of its own (what the journalist model and the attribute chart showed
before the rule was applied everywhere).
"""
import csv
import itertools
import json
from collections import Counter

import mpmath as mp

mp.mp.dps = 40
KNOWN = ["sex", "age", "race", "marital-status", "education", "native-country"]
FRACTION = mp.mpf("0.01")
MAX_MSU = 4

with open("../shared/data/adult/adult.csv", newline="", encoding="utf-8") as f:
    rows = [{k: v.strip() for k, v in r.items()}
            for r in csv.DictReader(f, delimiter=";")]
n = len(rows)
hidden = [int(r["age"]) >= 60 for r in rows]


def matches_on(attrs):
    """matches(r, attrs) for every record, by the one rule (only age can be
    hidden): a record with its age hidden matches every record on the
    other attributes; a visible age matches the same age or a hidden one."""
    if "age" not in attrs:
        key = [tuple(r[a] for a in attrs) for r in rows]
        count = Counter(key)
        return [count[k] for k in key]
    others = [a for a in attrs if a != "age"]
    key = [tuple(r[a] for a in others) for r in rows]
    everyone = Counter(key)
    hidden_count = Counter(k for k, h in zip(key, hidden) if h)
    visible = Counter((k, r["age"]) for k, r, h in zip(key, rows, hidden) if not h)
    return [everyone[k] if h else visible[(k, r["age"])] + hidden_count[k]
            for k, r, h in zip(key, rows, hidden)]


def own_value_matches_on(attrs):
    """The other reading: a hidden age is one more value (every hidden age
    the same), i.e. plain class sizes with age replaced by a marker."""
    key = [tuple("◆" if a == "age" and h else r[a] for a in attrs)
           for r, h in zip(rows, hidden)]
    count = Counter(key)
    return [count[k] for k in key]


def expected_inverse(f, p):
    """E[1/F | f], F - f ~ NB(f, p): sum_k C(f+k-1, k) p^f q^k / (f+k)."""
    q = 1 - p
    term = p ** f  # k = 0: C(f-1, 0) p^f q^0
    total = term / f
    k = 0
    while True:
        term = term * q * (f + k) / (k + 1)
        k += 1
        add = term / (f + k)
        total += add
        if add < total * mp.mpf("1e-30"):
            return total


def journalist(freq):
    risk = {f: expected_inverse(f, FRACTION) for f in set(freq)}
    top = max(risk.values())
    return {
        "max": float(top),
        "records_at_max": sum(1 for f in freq if risk[f] == top),
        "marketer": float(sum(risk[f] for f in freq) / n),
    }


combos = [c for size in range(1, len(KNOWN) + 1)
          for c in itertools.combinations(KNOWN, size)]
unique_on = {}
uniques = {}
own_value_uniques = {}
for c in combos:
    m = matches_on(c)
    unique_on[c] = [x == 1 for x in m]
    uniques[",".join(c)] = sum(unique_on[c])
    own_value_uniques[",".join(c)] = sum(1 for x in own_value_matches_on(c) if x == 1)

msu_counts = [0] * MAX_MSU
with_msu = set()
for c in combos:
    if len(c) > MAX_MSU:
        continue
    subs = [tuple(a for a in c if a != b) for b in c]
    for r in range(n):
        if not unique_on[c][r]:
            continue
        # The empty set singles nobody out (n > 1).
        if any(s and unique_on[s][r] for s in subs):
            continue
        msu_counts[len(c) - 1] += 1
        with_msu.add(r)

# Records with a hidden age never have an MSU naming age.
hidden_msu_with_age = 0
for c in combos:
    if len(c) > MAX_MSU or "age" not in c:
        continue
    subs = [tuple(a for a in c if a != b) for b in c]
    for r in range(n):
        if hidden[r] and unique_on[c][r] and not any(s and unique_on[s][r] for s in subs):
            hidden_msu_with_age += 1

full = matches_on(tuple(KNOWN))
own_full = own_value_matches_on(tuple(KNOWN))
print(json.dumps({
    "rows": n,
    "hidden_cells": sum(hidden),
    "known": KNOWN,
    "sampling_fraction": float(FRACTION),
    "sample_uniques": sum(1 for x in full if x == 1),
    "journalist": journalist(full),
    "suda": {
        "max_msu_size": MAX_MSU,
        "msu_counts_by_size": msu_counts,
        "records_with_msu": len(with_msu),
        "hidden_records_with_an_msu_naming_age": hidden_msu_with_age,
    },
    "attribute_uniques": uniques,
    # The other reading (a hidden age a value of its own), for contrast.
    "own_value": {
        "sample_uniques": sum(1 for x in own_full if x == 1),
        "journalist": journalist(own_full),
        "attribute_uniques": own_value_uniques,
    },
}, indent=1, ensure_ascii=False))
