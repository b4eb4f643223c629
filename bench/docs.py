#!/usr/bin/env python3
"""Regenerates every measured table and figure in docs/ from docs/results/*.csv.

    python3 bench/docs.py           rewrite the generated blocks and figures
    python3 bench/docs.py --check   exit 1 if a generated block is out of date

Figures quoted in sentences are generated too, one value at a time:

    <!-- value: speedup tour-h100 step2-constant step3-local -->0.97<!-- end value -->

(kinds: speedup, ratio, percent, column, and speedups and ratios over a
range of one column, COLUMN=FIRST..LAST[:STEP]; see value_text), and the
lessons' diagrams come from docgen/diagrams.py; --check covers both.

A generated block in a Markdown page looks like

    <!-- generated: seed001 pocl -->
    ...
    <!-- end generated -->

and everything between the markers is replaced by the table that the named
generator makes from the CSV files (see GENERATORS below). Figures need
matplotlib (Debian: python3-matplotlib); tables need only the standard library.
"""
import csv
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results")
FIGURES = os.path.join(ROOT, "docs", "figures")
BLOCK = re.compile(r"(<!-- generated: ([^>]*?) -->\n)(.*?)(<!-- end generated -->)", re.S)


def load(name):
    path = os.path.join(RESULTS, name + ".csv")
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def caption(rows, source):
    r = rows[0]
    return "\n*{} (driver {}), measured {}; `{}`.*\n".format(r["device"], r["driver"], r["date"], source)


def fmt(value, digits=3):
    if value in ("", None):
        return "-"
    v = float(value)
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


def seed001(tag):
    rows = load("seed001-" + tag)
    widths = sorted({int(r["filter_width"]) for r in rows})
    steps = ["step1-naive", "step2-constant", "step3-local", "step4-unroll"]
    body = []
    for w in widths:
        serial = pick(rows, step="serial", filter_width=str(w))
        line = ["F = {}".format(w), fmt(serial["median_ms"]) + " ms"]
        for s in steps:
            r = pick(rows, step=s, filter_width=str(w), wg="16x16")
            line.append("{} ms ({}x)".format(fmt(r["median_ms"]), fmt(r["speedup_serial"])) if r else "-")
        body.append(line)
    return table(["filter", "serial"] + steps, body) + caption(
        rows, "bench/experiments.sh seed001 " + tag) + "\nWork-group 16x16; in brackets: speedup over the serial loop.\n"


def seed001_wg(tag):
    rows = load("seed001-" + tag)
    widths = sorted({int(r["filter_width"]) for r in rows})
    wgs = ["8x8", "16x16", "32x32"]
    body = []
    for w in widths:
        line = ["F = {}".format(w)]
        for wg in wgs:
            r = pick(rows, step="step3-local", filter_width=str(w), wg=wg)
            line.append("{}x".format(fmt(r["speedup_serial"])) if r else "refused")
        body.append(line)
    return table(["step3-local, speedup over serial"] + wgs, body) + caption(
        rows, "bench/experiments.sh seed001 " + tag)


def seed000(tag):
    rows = load("seed000-" + tag)
    sizes = []
    for r in rows:
        s = "{}x{}".format(r["width"], r["height"])
        if s not in sizes:
            sizes.append(s)
    wgs = ["16x16", "32x8", "8x32"]
    body = []
    for s in sizes:
        w, h = s.split("x")
        line = [s]
        for wg in wgs:
            r = pick(rows, width=w, height=h, wg=wg)
            line.append(fmt(r["median_ms"]) + " ms" if r else "-")
        body.append(line)
    return table(["image"] + wgs, body) + caption(rows, "bench/experiments.sh seed000 " + tag)


def seed004(tag):
    rows = load("seed004-" + tag)
    body = []
    for w in range(12, 22):
        base = pick(rows, filter_width=str(w), variant="loop4")
        if not base:
            continue
        line = [str(w), str(w % 4), fmt(base["median_ms"]) + " ms"]
        for v in ("ifelse", "fixed"):
            r = pick(rows, filter_width=str(w), variant=v)
            line.append("{:.2f}".format(float(r["median_ms"]) / float(base["median_ms"])) if r else "-")
        body.append(line)
    return table(["F", "F % 4", "loop4", "ifelse / loop4", "fixed / loop4"], body) + caption(
        rows, "bench/experiments.sh seed004 " + tag)


# The variant of the step before that a step builds on (Step::builds_on in
# the launchers; tour.cpp computes "x prev" the same way).
BUILDS_ON = {"step5-vector": "fixed"}


def x_prev(rows):
    """A step's first variant over the variant of the step before that it
    builds on; a later variant over its own step's first; recomputed from
    the medians, so that CSVs written by an older tour read the same."""
    first, ms, out = {}, {}, []
    order = []
    for r in rows:
        first.setdefault(r["step"], r["variant"])
        ms[(r["step"], r["variant"])] = float(r["median_ms"])
        if r["step"] not in order:
            order.append(r["step"])
    for r in rows:
        step, variant = r["step"], r["variant"]
        i = order.index(step)
        if i == 0:
            base = None
        elif variant != first[step]:
            base = (step, first[step])
        else:
            prev = order[i - 1]
            base = (prev, BUILDS_ON.get(step, first[prev]))
        out.append(ms[base] / float(r["median_ms"]) if base in ms else None)
    return out


def tour(tag):
    rows = load("tour-" + tag)
    body = []
    for r, prev in zip(rows, x_prev(rows)):
        body.append([r["step"], r["variant"], fmt(r["median_ms"]), fmt(r["speedup_serial"]),
                     fmt(prev), fmt(r["gflops"]), fmt(r["gbps"]),
                     "{} ({})".format(fmt(r["pct_limit"]), r["limit"]) if r["pct_limit"] else "-"])
    r0 = rows[0]
    return table(["step", "variant", "median ms", "x serial", "x prev", "GFLOP/s", "GB/s", "% of limit"],
                 body) + caption(rows, "build/bin/tour --all-variants --csv") + (
        "\n{}x{} image, filter {}, border {}, work-group {}, median of {} launches; *x prev*: a step's "
        "first variant over the variant of the step before that it builds on (step 5 over step 4's "
        "`fixed`), a later variant over its own step's first.\n".format(
            r0["width"], r0["height"], r0["filter"], r0["border"], rows[1]["wg"], rows[1]["reps"]))


def kernel_diff(older, newer, name="convolve.cl"):
    """What `newer` changed in one file (the kernel, or launcher.cpp)."""
    import difflib
    a_path = os.path.join(ROOT, older, name)
    b_path = os.path.join(ROOT, newer, name)
    with open(a_path) as f:
        a = f.readlines()
    with open(b_path) as f:
        b = f.readlines()
    diff = difflib.unified_diff(a, b, older + "/" + name, newer + "/" + name, n=2)
    return "```diff\n" + "".join(diff) + "```\n"


# ---- figures quoted in the prose ---------------------------------------------
# <!-- value: speedup tour-pocl step3-local step4-unroll/fixed -->1.33<!-- end value -->
# is rewritten from the CSV like a generated block, so a figure in a sentence
# cannot drift from its table. A row is STEP[/VARIANT][@COLUMN=VALUE,...].
VALUE = re.compile(r"<!-- value: ([^>]*?) -->(.*?)<!-- end value -->")


def rows_matching(csv_name, spec):
    rows = load(csv_name)
    step, _, cond = spec.partition("@")
    step, _, variant = step.partition("/")
    variant = variant.replace("+", " ")  # "default+product=fused": a variant with settings
    match = {"step": step}
    if variant:
        match["variant"] = variant
    for kv in filter(None, cond.split(",")):
        k, _, v = kv.partition("=")
        match[k] = v
    return [r for r in rows if all(r.get(k) == v for k, v in match.items())]


def row_of(csv_name, spec):
    found = rows_matching(csv_name, spec)
    if len(found) != 1:
        raise SystemExit("docs.py: value '{}' matches {} rows of {}.csv, not one".format(spec, len(found), csv_name))
    return found[0]


def spread(csv_name, a, b, over, invert):
    """'LO to HI' of time(a) / time(b) (time(b) / time(a) with invert) for
    every value of a column in over = COLUMN=FIRST..LAST[:STEP] that both
    rows have."""
    column, _, span = over.partition("=")
    first, _, rest = span.partition("..")
    last, _, step = rest.partition(":")
    values = []
    for v in range(int(first), int(last) + 1, int(step or 1)):
        cond = "{}={}".format(column, v)
        specs = [r + ("," if "@" in r else "@") + cond for r in (a, b)]
        if not all(rows_matching(csv_name, r) for r in specs):
            continue  # a value the run did not measure
        ta, tb = (float(row_of(csv_name, r)["median_ms"]) for r in specs)
        values.append(tb / ta if invert else ta / tb)
    if not values:
        raise SystemExit("docs.py: no rows of {}.csv for {} and {} over {}".format(csv_name, a, b, over))
    lo, hi = "{:.2f}".format(min(values)), "{:.2f}".format(max(values))
    return lo if lo == hi else "{} to {}".format(lo, hi)


def value_text(spec):
    kind, csv_name, *rest = spec.split()
    if kind in ("speedups", "ratios"):  # the range of speedup / ratio over a column's values
        return spread(csv_name, rest[0], rest[1], rest[2], kind == "ratios")
    if kind == "speedup":  # how many times faster the second row is than the first
        a, b = (float(row_of(csv_name, r)["median_ms"]) for r in rest[:2])
        return "{:.2f}".format(a / b)
    if kind == "ratio":  # the second row's time over the first's
        a, b = (float(row_of(csv_name, r)["median_ms"]) for r in rest[:2])
        return "{:.2f}".format(b / a)
    if kind == "percent":  # how much slower (+) or faster (-) the second row is, in %
        a, b = (float(row_of(csv_name, r)["median_ms"]) for r in rest[:2])
        return "{:.0f}".format(100 * (b / a - 1))
    if kind == "column":
        return fmt(row_of(csv_name, rest[0])[rest[1]])
    raise SystemExit("docs.py: unknown value kind '{}' (speedup, ratio, percent, column, speedups, ratios)".format(kind))


def render_values(text):
    return VALUE.sub(lambda m: "<!-- value: {} -->{}<!-- end value -->".format(m.group(1), value_text(m.group(1))),
                     text)


GENERATORS = {"diff": kernel_diff, "seed001": seed001, "seed001-wg": seed001_wg, "seed000": seed000, "seed004": seed004,
              "tour": tour}


def plugins():
    """The lesson modules in bench/docgen/: each may define GENERATORS (a dict
    like the one above) and figures(plt), which draws its own SVGs."""
    import importlib
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    mods = []
    for path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "docgen", "*.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        if not name.startswith("_"):
            mods.append(importlib.import_module("docgen." + name))
    return mods


PLUGINS = []


def render(spec):
    name, *args = spec.split()
    if name not in GENERATORS:
        raise SystemExit("docs.py: unknown generator '{}'".format(name))
    return GENERATORS[name](*args)


def figures():
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.hashsalt"] = "clconv"  # stable SVG ids between runs
        import matplotlib.pyplot as plt
    except ImportError:
        print("docs.py: matplotlib not found (Debian: apt-get install python3-matplotlib); figures skipped",
              file=sys.stderr)
        return
    os.makedirs(FIGURES, exist_ok=True)
    tags = [t for t in ("pocl", "h100") if os.path.exists(os.path.join(RESULTS, "seed004-%s.csv" % t))]
    if tags:
        fig, axes = plt.subplots(1, len(tags), figsize=(5.5 * len(tags), 3.8), squeeze=False)
        for ax, tag in zip(axes[0], tags):
            rows = load("seed004-" + tag)
            for variant, style in (("loop4", "o-"), ("ifelse", "s-"), ("fixed", "^-")):
                pts = sorted((int(r["filter_width"]),
                              float(r["median_ms"]) * 1e6 / (int(r["width"]) * int(r["height"]) *
                                                              int(r["filter_width"]) ** 2))
                             for r in rows if r["variant"] == variant)
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, markersize=3, label=variant)
            ax.set_title("{} ({}x{})".format(rows[0]["device"], rows[0]["width"], rows[0]["height"]), fontsize=9)
            ax.set_xlabel("filter width F")
            ax.set_ylabel("ns per output pixel per tap")
            ax.set_yscale("log")
            ax.axvspan(15.5, 20.5, color="0.9")
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(FIGURES, "seed004-sawtooth.svg"), metadata={"Date": None})
        plt.close(fig)
    for mod in PLUGINS:
        if hasattr(mod, "figures"):
            mod.figures(plt)


def main():
    PLUGINS.extend(plugins())
    for mod in PLUGINS:
        GENERATORS.update(getattr(mod, "GENERATORS", {}))
    check = "--check" in sys.argv
    stale = []
    for page in sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True)):
        with open(page) as f:
            text = f.read()
        new = render_values(BLOCK.sub(lambda m: m.group(1) + render(m.group(2)) + m.group(4), text))
        if new != text:
            stale.append(os.path.relpath(page, ROOT))
            if not check:
                with open(page, "w") as f:
                    f.write(new)
    for mod in PLUGINS:  # plain-SVG diagrams: no matplotlib, so checked too
        for name, svg in (mod.diagrams() if hasattr(mod, "diagrams") else {}).items():
            path = os.path.join(FIGURES, name)
            old = open(path).read() if os.path.exists(path) else None
            if old != svg:
                stale.append(os.path.relpath(path, ROOT))
                if not check:
                    os.makedirs(FIGURES, exist_ok=True)
                    with open(path, "w") as f:
                        f.write(svg)
    if check:
        if stale:
            print("docs.py: out of date (run python3 bench/docs.py): " + ", ".join(stale))
            return 1
        print("docs.py: every generated block matches docs/results")
        return 0
    figures()
    for p in stale:
        print("docs.py: updated " + p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
