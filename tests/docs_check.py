#!/usr/bin/env python3
"""The docs check catches a stale figure: docgen/docs.py --check must fail on
tests/data/stale-figures.md with one finding per planted mistake, on its
line, and pass on tests/data/good-figures.md once that page is rendered; a
value that names no row fails with a message, not a traceback. The
generators that read the sources (`source` and `reading`) quote and count
tests/data/reading-sample.cpp as its comment says, and one that names a
function the file does not define fails with a message."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = [sys.executable, os.path.join(ROOT, "docgen", "docs.py")]
DATA = os.path.join(ROOT, "tests", "data")
failures = []


def run(*args):
    p = subprocess.run(DOCS + list(args), capture_output=True, text=True, cwd=ROOT)
    return p.returncode, p.stdout + p.stderr


def expect(cond, what, out):
    if not cond:
        failures.append("{}\n--- output:\n{}".format(what, out))


stale = os.path.join(DATA, "stale-figures.md")
rc, out = run("--check", stale)
expect(rc == 1, "--check passed a page with stale figures (exit {})".format(rc), out)
expect("out of date" in out and "stale-figures.md" in out, "the stale value marker was not reported", out)
with open(stale) as f:
    lines = f.read().split("\n")


def line_of(text):
    return next(i for i, l in enumerate(lines, 1) if text in l)


for figure in ("7.5x", "4.96 ms"):
    expect("stale-figures.md:{}: '{}': typed figure".format(line_of("7.5x faster"), figure) in out,
           "the typed figure '{}' was not reported on its line".format(figure), out)
expect("stale-figures.md:{}: '45 %': literal marker without a source".format(line_of("<!-- literal: -->")) in out,
       "the literal marker without a source was not reported", out)
expect("stale-figures.md:{}: claim no longer holds".format(line_of("<!-- claim:")) in out,
       "the claim the CSV contradicts was not reported", out)
for fine in ("45 to 48", "256", "20", "72.3"):
    expect("'{}".format(fine) not in out, "a legitimate figure ({}) was reported".format(fine), out)

with tempfile.TemporaryDirectory() as tmp:
    good = os.path.join(tmp, "good-figures.md")
    shutil.copy(os.path.join(DATA, "good-figures.md"), good)
    rc, out = run("--check", good)
    expect(rc == 1, "--check passed a page whose values were never rendered", out)
    rc, out = run(good)
    expect(rc == 0, "rendering the good page failed", out)
    rc, out = run("--check", good)
    expect(rc == 0 and "no typed figures" in out, "--check refused the rendered good page", out)
    with open(good) as f:
        expect("-->X<!--" not in f.read(), "the good page's values were not rendered", out)

    bad = os.path.join(tmp, "no-row.md")
    with open(bad, "w") as f:
        f.write("<!-- value: speedup tour-pocl step1-naive step9-nothing -->1<!-- end value -->\n")
    rc, out = run("--check", bad)
    expect(rc != 0 and "matches 0 rows of tour-pocl.csv" in out and "Traceback" not in out,
           "a value naming no row did not fail with a clean message", out)

    sample = "tests/data/reading-sample.cpp"
    page = os.path.join(tmp, "reading.md")
    with open(page, "w") as f:
        f.write("<!-- generated: reading {0}:one {0}:two also: {0}:Thing::three kernel: {0} -->\n"
                "<!-- end generated -->\n"
                "<!-- generated: source {0} int~Thing::three return~n; -->\n<!-- end generated -->\n".format(sample))
    rc, out = run(page)
    with open(page) as f:
        text = f.read()
    expect(rc == 0, "rendering the reading page failed", out + text)
    for row in ("| `{}`: `one()` | 4 |".format(sample), "| `{}`: `two()` (2 definitions) | 6 |".format(sample),
                "| **the path, outside the kernel** | **10** |", "| `{}`: `Thing::three()` | 5 |".format(sample),
                "| **the path and the further reading** | **15** |", "| `{}` (the kernel) | 23 |".format(sample),
                "outside the kernel: **10 lines**"):
        expect(row in text, "the reading table lacks '{}'".format(row), text)
    expect("```cpp\nint Thing::three() const {\n  int n = 0;" in text and "lines 26 to 28." in text,
           "the source block is not lines 26 to 28 of the sample", text)
    rc, out = run("--check", page)
    expect(rc == 0, "--check refused the rendered reading page", out)

    missing = os.path.join(tmp, "missing.md")
    with open(missing, "w") as f:
        f.write("<!-- generated: reading {}:four -->\n<!-- end generated -->\n".format(sample))
    rc, out = run("--check", missing)
    expect(rc != 0 and "defines no function 'four'" in out and "Traceback" not in out,
           "a reading part naming no function did not fail with a clean message", out)

for f in failures:
    print("FAILED: " + f)
print("docs_check: {} of the checks failed".format(len(failures)) if failures else "docs_check: all checks passed")
sys.exit(1 if failures else 0)
