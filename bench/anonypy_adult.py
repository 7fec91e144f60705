"""anonypy's Mondrian (PyPI `anonypy`) with k=5 on Adult, for the side by
side of BENCHMARKS.md (issue 3). Run by bench/run_anonymize.sh from a
temporary venv; never by the tests.

    python bench/anonypy_adult.py ADULT.csv [--k 5] [--output OUT.csv] [--quiet]

Same 8 quasi-identifiers as anonlab's Mondrian; salary-class is the
sensitive column anonypy's Preserver requires. Categorical QIs get pandas'
'category' dtype (anonypy splits those by value sets, numeric ones at the
median); age stays numeric. Prints the in-process time of
`Preserver(...).anonymize_k_anonymity(k)` (partitioning and building the
generalized rows; no imports, no CSV read) unless --quiet.
"""
import argparse
import time

import anonypy
import pandas as pd

QI = ["sex", "age", "race", "marital-status", "education",
      "native-country", "workclass", "occupation"]
SENSITIVE = "salary-class"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--output")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()

    df = pd.read_csv(a.csv, sep=";")
    for c in QI + [SENSITIVE]:
        if c != "age":
            df[c] = df[c].astype("category")

    start = time.perf_counter()
    p = anonypy.Preserver(df, QI, SENSITIVE)
    rows = p.anonymize_k_anonymity(k=a.k)
    elapsed = time.perf_counter() - start

    if a.output:
        pd.DataFrame(rows).to_csv(a.output, index=False)
    if not a.quiet:
        counts = sum(r["count"] for r in rows)
        print(f"anonypy {getattr(anonypy, '__version__', '')} Mondrian k={a.k} on "
              f"{len(df)} rows: {elapsed * 1e3:.1f} ms in process "
              f"(anonymize_k_anonymity; {len(rows)} output rows covering {counts} records)")


if __name__ == "__main__":
    main()
