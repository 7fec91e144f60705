#!/usr/bin/env python3
"""Expected figures of the statistics offices' measures on UCI
Adult, computed independently of anonlab (and of ARX and sdcMicro's code)
from the models' definitions, for tests/population_adult.rs.

Run from the repository root (needs mpmath):
    python3 tests/golden/adult_population.py > tests/golden/adult_population.json

QI sets: the 8 attributes other than salary-class (file order) and the
first 4 of them. Sampling fractions 0.01, 0.1, 0.5, N = round(n / F).

- Pitman (Hoshino 2001): maximum of the Ewens-Pitman likelihood
  L = sum_{i<u} log(t + i a) - sum_{i<n} log(t + i) + sum_s c_s sum_{l<s} log(l - a),
  found by nested bisection on its score equations (for each a, the root in
  t of dL/dt; then the root in a of dL/da), sums by digamma identities at
  40 digits; estimate Gamma(t+1)/Gamma(t+a) N^a.
- Zayatz (1991): u1 * P(F=1|f=1) / (n/N), P(F=1|f=1) = (u1/u) h(1) /
  sum_K (c_K/u) h(K), h(K) = P(one of K members in a sample of n from N)
  = K C(N-K, n-1) / C(N, n) by log-gamma at 40 digits.
- SNB (Chen and Keller-McNulty 1998): F = 1 + NB(a, b), f | F ~ Bin(F, pi);
  P(f=1), P(f=2) from the probability generating function
  G(s) = s (b / (1 - (1-b) s))^a differentiated numerically by mpmath;
  K by Haas et al.'s Shlosser-type estimator; (a, b) from
  K P(f=1) = u1, K P(f=2) = u2 by mpmath.findroot from a grid of starts
  (a root must have a > 0, 0 < b <= 1 and give K b^a in (0, N]); when none
  of the nine starts converges the figure is written as null.
- Dankar et al. (2012) rule: pi <= 0.1 -> Pitman (else Zayatz); pi > 0.1 ->
  min(Zayatz, SNB) (Zayatz when SNB has none).
- Journalist estimate without a population table: E[1/F | f] with F - f
  negative binomial(f, p = n/N), summed term by term; mean = max(u / N,
  marketer), marketer = mean over records.
- Individual risk (Benedetti-Franconi; Franconi-Polettini 2004) with weights
  w_r = 1 + (splitmix64(17 + r) >> 11) / 2^53 * 199, written with two
  decimals: p = f / sum(w); approx: (p/q) log(1/p) (f=1),
  p/q - (p/q)^2 log(1/p) (f=2), p/(f - q) (f>2); exact: E[1/F | f] summed
  term by term; a class with sum(w) = f has 1/f.
- Attribute risks: distinction u/n, separation 1 - sum C(f,2)/C(n,2),
  uniques share, for every non-empty combination.
- SUDA: minimal sample uniques up to size 4 by brute force over all
  attribute subsets (unique on S, not on any S minus one attribute);
  scores (M-k)!, DIS-SUDA with pi = 0.01 (sdcMicro's default) and 0.1.
"""
import csv
import itertools
import json
import math
from collections import Counter

import mpmath as mp

mp.mp.dps = 40
ADULT = "../shared/data/adult/adult.csv"
QI8 = ["sex", "age", "race", "marital-status", "education",
       "native-country", "workclass", "occupation"]
QI4 = QI8[:4]
FRACTIONS = [0.01, 0.1, 0.5]

with open(ADULT, newline="", encoding="utf-8") as fh:
    ROWS = [{k: v.strip() for k, v in r.items()} for r in csv.DictReader(fh, delimiter=";")]
n = len(ROWS)


def keys(attrs):
    return [tuple(r[a] for a in attrs) for r in ROWS]


def size_table(counter):
    return Counter(counter.values())


# ---- Pitman -------------------------------------------------------------
def pitman(c, u, nn, N):
    sizes = sorted(c.items())

    def d_theta(t, a):
        s1 = (mp.digamma(t / a + u) - mp.digamma(t / a + 1)) / a
        return s1 - (mp.digamma(nn + t) - mp.digamma(t + 1))

    def d_alpha(t, a):
        si = ((u - 1) * a - t * (mp.digamma(t / a + u) - mp.digamma(t / a + 1))) / a ** 2
        l1 = sum(cnt * (mp.digamma(s - a) - mp.digamma(1 - a)) for s, cnt in sizes if s > 1)
        return si - l1

    def theta_of(a):
        lo, hi = mp.mpf("1e-12"), mp.mpf(1)
        while d_theta(hi, a) > 0:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            if d_theta(mid, a) > 0:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    lo, hi = mp.mpf("1e-9"), 1 - mp.mpf("1e-9")
    glo = d_alpha(theta_of(lo), lo)
    for _ in range(120):
        mid = (lo + hi) / 2
        g = d_alpha(theta_of(mid), mid)
        if (g > 0) == (glo > 0):
            lo, glo = mid, g
        else:
            hi = mid
    a = (lo + hi) / 2
    t = theta_of(a)
    est = mp.exp(mp.loggamma(t + 1) - mp.loggamma(t + a)) * mp.mpf(N) ** a
    return float(est / N) if 0 < est <= N else None


# ---- Zayatz --------------------------------------------------------------
def h_one(N, K, nn):
    if N - K < nn - 1:
        return mp.mpf(0)
    lc = lambda a, b: mp.loggamma(a + 1) - mp.loggamma(b + 1) - mp.loggamma(a - b + 1)
    return K * mp.exp(lc(N - K, nn - 1) - lc(N, nn))


def zayatz(c, u, nn, N):
    u1 = c.get(1, 0)
    den = sum(mp.mpf(cnt) / u * h_one(N, s, nn) for s, cnt in c.items())
    cond = (mp.mpf(u1) / u * h_one(N, 1, nn)) / den
    return float(u1 * cond / (mp.mpf(nn) / N) / N)


# ---- SNB ------------------------------------------------------------------
def shlosser(c, u, pi):
    pi = mp.mpf(pi)
    u1 = c.get(1, 0)
    num = sum(i * pi ** 2 * (1 - pi ** 2) ** (i - 1) * ci for i, ci in c.items())
    den = sum((1 - pi) ** i * ((1 + pi) ** i - 1) * ci for i, ci in c.items())
    a = sum((1 - pi) ** i * ci for i, ci in c.items())
    b = sum(i * pi * (1 - pi) ** (i - 1) * ci for i, ci in c.items())
    return u + u1 * (num / den) * (a / b) ** 2


def snb(c, u, nn, N):
    pi = mp.mpf(nn) / N
    K = shlosser(c, u, pi)
    u1, u2 = c.get(1, 0), c.get(2, 0)

    def eqs(a, b):
        a, b = mp.re(a), mp.re(b)
        if not (a > 0 and 0 < b <= 1):
            # Outside the model's parameter space: push the search back.
            return [mp.mpf(10) ** 6 * (1 + abs(a) + abs(b))] * 2
        G = lambda s: s * (b / (1 - (1 - b) * s)) ** a
        p1 = pi * mp.diff(G, 1 - pi, 1)
        p2 = pi ** 2 / 2 * mp.diff(G, 1 - pi, 2)
        return [K * p1 - u1, K * p2 - u2]

    found = []
    for a0 in [0.2, 1.0, 3.0]:
        for b0 in [0.1, 0.5, 0.9]:
            try:
                a, b = mp.findroot(eqs, (mp.mpf(a0), mp.mpf(b0)), tol=mp.mpf(10) ** -20, maxsteps=60)
            except (ValueError, ZeroDivisionError):
                continue
            a, b = mp.re(a), mp.re(b)
            if a > 0 and 0 < b <= 1:
                v = K * b ** a
                if 0 < v <= N:
                    found.append(float(v / N))
    if not found:
        return None
    assert max(found) - min(found) < 1e-9 * max(found), found
    return found[0]


# ---- E[1/F | f] ------------------------------------------------------------
def expected_inverse(f, p):
    """sum_h C(f+h-1, h) p^f q^h / (f + h), terms in logs, until negligible."""
    if p >= 1:
        return 1.0 / f
    q = 1.0 - p
    lt = f * math.log(p)
    total, h = 0.0, 0
    peak = 0.0
    while True:
        term = math.exp(lt) / (f + h)
        total += term
        peak = max(peak, term)
        if h > f * q / p and term < 1e-19 * total:
            return total
        lt += math.log((f + h) / (h + 1) * q)
        h += 1


def journalist(classes, nn, N):
    p = nn / N
    memo = {}
    r = {s: memo.setdefault(s, expected_inverse(s, p)) for s in set(classes.values())}
    per = [r[s] for s in classes.values() for _ in range(s)]
    marketer = sum(per) / nn
    mx = max(per)
    return {"mean": max(len(classes) / N, marketer), "max": mx,
            "records_at_max": sum(1 for x in per if x == mx), "marketer": marketer}


# ---- individual risk ---------------------------------------------------------
def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


WEIGHTS = ["%.2f" % (1 + (splitmix64(17 + r) >> 11) / 2 ** 53 * 199) for r in range(n)]


def individual(attrs, method):
    ks = keys(attrs)
    f = Counter(ks)
    wsum = Counter()
    for k, w in zip(ks, WEIGHTS):
        wsum[k] += float(w)
    risk = {}
    for k, fk in f.items():
        F = wsum[k]
        if F <= fk:
            risk[k] = 1.0 / fk
            continue
        p = fk / F
        q = 1 - p
        if method == "exact":
            risk[k] = expected_inverse(fk, p)
        elif fk == 1:
            risk[k] = p / q * math.log(1 / p)
        elif fk == 2:
            risk[k] = p / q - (p / q) ** 2 * math.log(1 / p)
        else:
            risk[k] = p / (fk - q)
    per = [risk[k] for k in ks]
    er = sum(per)
    return {"mean": er / n, "max": max(per), "expected_reidentifications": er,
            "records_above_0_2": sum(1 for x in per if x > 0.2)}


# ---- attribute risks and SUDA -------------------------------------------------
def attribute_risks(attrs):
    out = {}
    pairs_all = n * (n - 1) / 2
    for k in range(1, len(attrs) + 1):
        for combo in itertools.combinations(attrs, k):
            c = Counter(keys(combo))
            out[",".join(combo)] = {
                "distinction": len(c) / n,
                "separation": 1 - sum(s * (s - 1) / 2 for s in c.values()) / pairs_all,
                "uniques": sum(1 for s in c.values() if s == 1) / n,
            }
    return out


def suda(attrs, m, fractions):
    M = len(attrs)
    unique = {}
    for k in range(1, m + 1):
        for combo in itertools.combinations(range(M), k):
            ks = keys([attrs[i] for i in combo])
            c = Counter(ks)
            unique[combo] = {r for r, key in enumerate(ks) if c[key] == 1}
    msus = [[] for _ in range(n)]
    for combo, rows in unique.items():
        for r in rows:
            if all(r not in unique.get(tuple(x for x in combo if x != a), set())
                   for a in combo if len(combo) > 1):
                msus[r].append(combo)
    by_size = [0] * m
    for lst in msus:
        for s in lst:
            by_size[len(s) - 1] += 1
    score = [sum(math.factorial(M - len(s)) for s in lst) for lst in msus]
    full = Counter(Counter(keys(attrs)).values())
    U, P = full.get(1, 0), 2 * full.get(2, 0)
    qexp = 1 + (8 - M) / 20
    adj = sum(s ** -qexp for s in score if s > 0)
    dis = {}
    for pi in fractions:
        d = U * pi / (U * pi + P * (1 - pi))
        ds = [1 / (1 + (U / d - U) / (s ** qexp * adj)) if s > 0 else 0.0 for s in score]
        dis[str(pi)] = {"mean": sum(ds) / n, "max": max(ds)}
    total = sum(score)
    contrib = {}
    for i, a in enumerate(attrs):
        contrib[a] = 100 * sum(math.factorial(M - len(s)) for lst in msus for s in lst if i in s) / total
    return {"records_with_msu": sum(1 for lst in msus if lst), "msu_counts_by_size": by_size,
            "dis_suda": dis, "attribute_contributions": contrib}


out = {"rows": n, "weights_seed": 17, "qi_sets": {}}
for name, attrs in [("qi8", QI8), ("qi4", QI4)]:
    classes = Counter(keys(attrs))
    c = size_table(classes)
    u = len(classes)
    models = {}
    for F in FRACTIONS:
        N = round(n / F)
        p, z, s = pitman(c, u, n, N), zayatz(c, u, n, N), snb(c, u, n, N)
        if n / N <= 0.1:
            dk, dm = (p, "pitman") if p is not None else (z, "zayatz")
        elif s is not None:
            dk, dm = (z, "zayatz") if z < s else (s, "snb")
        else:
            dk, dm = z, "zayatz"
        models[str(F)] = {"population_size": N, "pitman": p, "zayatz": z, "snb": s,
                          "dankar": dk, "dankar_model": dm, "journalist": journalist(classes, n, N)}
    out["qi_sets"][name] = {
        "attributes": attrs,
        "sample_uniques": c.get(1, 0) / n,
        "fractions": models,
        "individual": {m: individual(attrs, m) for m in ["approx", "exact"]},
        "attribute_risks": attribute_risks(attrs),
        "suda": suda(attrs, 4, [0.01, 0.1]),
    }
print(json.dumps(out, indent=1, sort_keys=True))
