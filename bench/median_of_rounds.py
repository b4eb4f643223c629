#!/usr/bin/env python3
"""Merges several runs of the same sweep (rounds) into one CSV: for each row
of the first round, the row (of any round) whose median_ms is the median of
that configuration's medians, so one slow process does not decide a table.

    python3 bench/median_of_rounds.py OUT.csv ROUND1.csv ROUND2.csv ...

A configuration is its step, variant, work-group, filter and image size.
OUT is written through a temporary file.
"""
import csv
import os
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: bench/median_of_rounds.py OUT.csv ROUND.csv [ROUND.csv ...]")
    out, paths = sys.argv[1], sys.argv[2:]
    rounds = []
    for path in paths:
        with open(path, newline="") as f:
            rounds.append(list(csv.DictReader(f)))
    if not rounds[0]:
        sys.exit("median_of_rounds.py: %s has no rows" % paths[0])
    key = lambda r: (r["step"], r["variant"], r["wg"], r["filter"], r["width"], r["height"])
    with open(out + ".tmp", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rounds[0][0].keys()), lineterminator="\n")
        w.writeheader()
        for row in rounds[0]:
            same = sorted((r for rs in rounds for r in rs if key(r) == key(row)),
                          key=lambda r: float(r["median_ms"]))
            w.writerow(same[len(same) // 2])
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
