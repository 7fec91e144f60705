#!/usr/bin/env python3
"""Adult with UCI's education_num beside education, for the p-sensitive
paper's setting (sensitive attributes education_num, education and
occupation; Truta, Campan & Meyer, Section 4).

The shared copy of Adult (../shared/data/adult/adult.csv) has no
education_num column. In UCI's Adult, education_num is a one-to-one
recoding of education (the 16 levels numbered in schooling order, the
table below, as in UCI's adult.names and the original adult.data), so it
is derived here rather than dropped: the derived file has the same rows
and columns plus education_num, inserted after education. The script
fails if a row's education is not one of the 16 levels, or if the map
stops being one-to-one. tests/pk_adult.rs checks the same map on Adult.

Usage: python3 bench/adult_education_num.py ADULT_CSV OUT_CSV
(OUT_CSV outside the repository: Adult is never copied into it.)
"""
import csv
import sys

# UCI Adult: education -> education_num.
EDUCATION_NUM = {
    "Preschool": 1,
    "1st-4th": 2,
    "5th-6th": 3,
    "7th-8th": 4,
    "9th": 5,
    "10th": 6,
    "11th": 7,
    "12th": 8,
    "HS-grad": 9,
    "Some-college": 10,
    "Assoc-voc": 11,
    "Assoc-acdm": 12,
    "Bachelors": 13,
    "Masters": 14,
    "Prof-school": 15,
    "Doctorate": 16,
}


def main():
    src, out = sys.argv[1], sys.argv[2]
    assert len(set(EDUCATION_NUM.values())) == len(EDUCATION_NUM), "map not one-to-one"
    with open(src, newline="") as f:
        rows = list(csv.reader(f, delimiter=";"))
    header = rows[0]
    e = header.index("education")
    seen = set()
    with open(out, "w", newline="") as f:
        w = csv.writer(f, delimiter=";", lineterminator="\n")
        w.writerow(header[: e + 1] + ["education_num"] + header[e + 1 :])
        for i, row in enumerate(rows[1:], start=2):
            value = row[e]
            if value not in EDUCATION_NUM:
                sys.exit(f"row {i}: education '{value}' is not one of UCI's 16 levels")
            seen.add(value)
            w.writerow(row[: e + 1] + [str(EDUCATION_NUM[value])] + row[e + 1 :])
    print(f"{len(rows) - 1} rows, {len(seen)} education levels, written to {out}")


if __name__ == "__main__":
    main()
