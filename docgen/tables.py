"""What docs.py and every page module in pages/ share: where the results and
figures live, reading a results CSV, and formatting its numbers as tables.
The page modules import these from here, never from docs.py, so no module
imports the one that imports it."""
import csv
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results")
FIGURES = os.path.join(ROOT, "docs", "figures")


def load(name):
    path = os.path.join(RESULTS, name + ".csv")
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def stored_winners(tag):
    """{width (str): {option: value}} of step 7's tuned winners for a device
    (docs/results/tuned-step7-TAG.txt: lines of the tuner's store, step,
    device, driver, problem "F=N", configuration, median, the defaults'
    median and, in newer lines, the kernels' fingerprint, tab-separated;
    '#' lines are its header), or None without it."""
    path = os.path.join(RESULTS, "tuned-step7-%s.txt" % tag)
    if not os.path.exists(path):
        return None
    out = {}
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if line.startswith("#") or len(fields) < 5 or not fields[3].startswith("F="):
                continue
            out[fields[3][2:]] = dict(kv.split("=", 1) for kv in fields[4].split())
    return out


def caption(rows, source):
    r = rows[0]
    return "\n*{} (driver {}), measured {}; `{}`.*\n".format(r["device"], r["driver"], r["date"], source)


def fmt(value, digits=3):
    if value in ("", None):
        return "-"
    try:
        v = float(value)
    except ValueError:  # a word, such as the kernels per axis "1+2": as it is
        return value
    if v >= 100:
        return "{:.0f}".format(v)
    if v >= 10:
        return "{:.1f}".format(v)
    return "{:.{}f}".format(v, digits if v < 1 else 2)


def table(header, body):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def pick(rows, **match):
    for r in rows:
        if all(r[k] == v for k, v in match.items()):
            return r
    return None
