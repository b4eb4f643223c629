#!/usr/bin/env python3
"""Regenerates every measured table and figure in docs/ from docs/results/*.csv.

    python3 docgen/docs.py           rewrite the generated blocks and figures
    python3 docgen/docs.py --check   exit 1 if a generated block or value is out
                                    of date, or a figure is typed into the prose
    python3 docgen/docs.py --check docs/step4-unroll.md   those pages only

Figures quoted in sentences are generated too, one value at a time:

    <!-- value: speedup tour-h100 step2-constant step3-local -->0.97<!-- end value -->

(kinds: speedup, ratio, percent, saving, share, column, and each over a
range of rows; see value_text), and the lessons' diagrams come from
pages/diagrams.py; --check covers both. A figure typed into a sentence
instead (a number with ms, %, x, GB/s...) fails --check unless it is
wrapped in a literal marker naming its source (see FIGURE below), and a
claim marker pins a claim made in words ("faster at every size") to the
figures, failing --check when they stop bearing it out (see CLAIM).

A generated block in a Markdown page looks like

    <!-- generated: steps1to4 pocl -->
    ...
    <!-- end generated -->

and everything between the markers is replaced by the table that the named
generator makes from the CSV files (see GENERATORS below). Figures need
matplotlib (Debian: python3-matplotlib); tables need only the standard library.
"""
import glob
import os
import re
import sys

from tables import ROOT, RESULTS, FIGURES, load, caption, fmt, table, pick

BLOCK = re.compile(r"(<!-- generated: ([^>]*?) -->\n)(.*?)(<!-- end generated -->)", re.S)


def steps1to4(tag):
    rows = load("steps1to4-" + tag)
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
        rows, "bench/experiments.sh steps1to4 " + tag) + "\nWork-group 16x16; in brackets: speedup over the serial loop.\n"


def steps1to4_wg(tag):
    rows = load("steps1to4-" + tag)
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
        rows, "bench/experiments.sh steps1to4 " + tag)


def wg_shapes(tag):
    rows = load("wg-shapes-" + tag)
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
    return table(["image"] + wgs, body) + caption(rows, "bench/experiments.sh wg-shapes " + tag)


def unroll_widths(tag):
    rows = load("unroll-widths-" + tag)
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
        rows, "bench/experiments.sh unroll-widths " + tag)


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
    # Each step at its own default work-group: name the ones that differ from step 1's.
    own = ["{} {}".format(r["step"].split("-")[0].replace("step", "step "), r["wg"]) for r in rows[1:]
           if r["wg"] != rows[1]["wg"]]
    own = sorted(set(own), key=lambda t: (int(t.split()[1]), t))
    wg = rows[1]["wg"] + (" (each step's default: {})".format(", ".join(own)) if own else "")
    return table(["step", "variant", "median ms", "x serial", "x prev", "GFLOP/s", "GB/s", "% of limit"],
                 body) + caption(rows, "build/bin/tour --all-variants --csv") + (
        "\n{}x{} image, filter {}, border {}, work-group {}, median of {} launches; *x prev*: a step's "
        "first variant over the variant of the step before that it builds on (step 5 over step 4's "
        "`fixed`), a later variant over its own step's first.\n".format(
            r0["width"], r0["height"], r0["filter"], r0["border"], wg, rows[1]["reps"]))


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


# ---- source quoted in the lessons, and the lines a reader reads ----------------
# <!-- generated: source step1-naive/launcher.cpp //~1. //~2. -->
# quotes a piece of a source file; <!-- generated: reading PART ... --> counts
# the lines of a reading path. Both read the sources when the page is
# generated, so --check fails when the code changes and the page does not.

def _source_lines(path):
    full = os.path.join(ROOT, path)
    if not os.path.isfile(full):
        raise SystemExit("docs.py: '{}' is not a file of the repository".format(path))
    with open(full) as f:
        return f.read().split("\n")


def _find_line(lines, text, start, path):
    """The first line from `start` that contains `text` (a "~" is a space)."""
    text = text.replace("~", " ")
    for i in range(start, len(lines)):
        if text in lines[i]:
            return i
    raise SystemExit("docs.py: no line of {} (from line {}) contains '{}'".format(path, start + 1, text))


def source(path, start=None, stop=None):
    """Quotes `path` from the first line containing START (whole file
    without it) up to, not including, the next line containing STOP (to the
    end without it); a "~" in START or STOP is a space. The piece is
    dedented, and captioned with its file and lines."""
    import textwrap
    lines = _source_lines(path)
    first = _find_line(lines, start, 0, path) if start else 0
    last = _find_line(lines, stop, first + 1, path) if stop else len(lines)
    while last > first and not lines[last - 1].strip():
        last -= 1
    while first < last and not lines[first].strip():
        first += 1
    lang = {".cl": "c", ".cpp": "cpp", ".hpp": "cpp", ".py": "python", ".sh": "sh"}.get(
        os.path.splitext(path)[1], "")
    body = textwrap.dedent("\n".join(lines[first:last]))
    return "```{}\n{}\n```\n*`{}`, lines {} to {}.*\n".format(lang, body, path, first + 1, last)


def _skip_literal(text, i):
    """The index just past the comment, string or character literal that
    starts at text[i], or i when none does."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    m = re.match(r'R"([^(\s]*)\(', text[i:i + 20])
    if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
        end = text.find(")" + m.group(1) + '"', i)
        return len(text) if end < 0 else end + len(m.group(1)) + 2
    if text[i] in "\"'":
        if text[i] == "'" and i > 0 and text[i - 1].isalnum():
            return i  # a digit separator (1'000)
        j = i + 1
        while j < len(text) and text[j] != text[i]:
            j += 2 if text[j] == "\\" else 1
        return j + 1
    return i


def _definitions(lines, name, path):
    """(first, last) line indexes of every definition of the function `name`
    (a qualified name for a member: Launch::buffer) at the top level of a
    C++ file, each from the comment right above it to its closing brace."""
    head = re.compile(r"(?<![\w:~])" + re.escape(name) + r"\s*\(")
    text = "\n".join(lines)
    starts = [sum(len(l) + 1 for l in lines[:n]) for n in range(len(lines))]
    found = []
    n = 0
    while n < len(lines):
        line = lines[n]
        if not line or line[0].isspace() or line.startswith(("//", "#")) or not head.search(line):
            n += 1
            continue
        i, depth, body = starts[n] + head.search(line).end() - 1, 0, None
        while i < len(text):  # past the parameters, to the body's brace or a ';'
            j = _skip_literal(text, i)
            if j != i:
                i = j
                continue
            c = text[i]
            depth += c == "("
            depth -= c == ")"
            if depth == 0 and c in "{;":
                body = i if c == "{" else None
                break
            i += 1
        if body is None:  # a declaration
            n += 1
            continue
        i, braces = body, 0
        while i < len(text):
            j = _skip_literal(text, i)
            if j != i:
                i = j
                continue
            braces += (text[i] == "{") - (text[i] == "}")
            if braces == 0:
                break
            i += 1
        last = text.count("\n", 0, i)
        first = n
        while first > 0 and lines[first - 1].lstrip().startswith("//"):
            first -= 1
        found.append((first, last))
        n = last + 1
    if not found:
        raise SystemExit("docs.py: {} defines no function '{}'".format(path, name))
    return found


def reading_part(part):
    """(label, lines read) for FILE or FILE:FUNCTION; lines read are the
    non-blank ones, comments included."""
    path, _, name = part.partition(":")
    lines = _source_lines(path)
    if not name:
        return "`{}`".format(path), sum(1 for l in lines if l.strip())
    defs = _definitions(lines, name, path)
    count = sum(1 for a, b in defs for l in lines[a:b + 1] if l.strip())
    return "`{}`: `{}()`{}".format(path, name, " ({} definitions)".format(len(defs)) if len(defs) > 1 else ""), count


def reading(*parts):
    """The lines a reader reads along a path through the sources: PART ...
    [also: PART ...] [kernel: FILE ...]. A PART is FILE (all of it) or
    FILE:FUNCTION (every top-level definition of that name, with the
    comment above it). The path's total comes first; the parts after
    "also:" (further reading) and "kernel:" are listed, not added to it."""
    groups = {"path": [], "also": [], "kernel": []}
    group = "path"
    for p in parts:
        if p in ("also:", "kernel:"):
            group = p[:-1]
        else:
            groups[group].append(reading_part(p))
    if not groups["path"]:
        raise SystemExit("docs.py: 'reading' needs at least one part before also: or kernel:")
    total = sum(n for _, n in groups["path"])
    rows = [[label, str(n)] for label, n in groups["path"]]
    rows.append(["**the path, outside the kernel**", "**{}**".format(total)])
    rows += [[label + " (the kernel)", str(n)] for label, n in groups["kernel"]]
    text = "End to end, outside the kernel: **{} lines**.\n\n".format(total)
    if groups["also"]:
        also = sum(n for _, n in groups["also"])
        rows.append(["*further, if you follow the names:*", ""])
        rows += [[label, str(n)] for label, n in groups["also"]]
        rows.append(["**the path and the further reading**", "**{}**".format(total + also)])
    return text + table(["read", "lines"], rows) + (
        "\n*Non-blank lines, comments included, counted in the sources by `docgen/docs.py` "
        "(generator `reading`) each time the page is generated; a function counts from the "
        "comment above it to its closing brace.*\n")


# ---- figures quoted in the prose ---------------------------------------------
# <!-- value: speedup tour-pocl step3-local step4-unroll/fixed -->1.33<!-- end value -->
# is rewritten from the CSV like a generated block, so a figure in a sentence
# cannot drift from its table. A row is STEP[/VARIANT][@COLUMN=VALUE,...];
# a "~" in a value stands for a space ("variant=default~block=8x4").
VALUE = re.compile(r"<!-- value: ([^>]*?) -->(.*?)<!-- end value -->")


def rows_matching(csv_name, spec):
    """The rows of a CSV that a row spec names. A spec is
    [CSV:]STEP[/VARIANT][@COLUMN=VALUE,...]: CSV: reads another file than
    the marker's (a peer beside a step), and an empty STEP matches any step
    (@variant=local-words,image=random). A value may list alternatives,
    A|B|C (step1-naive|step2-constant@filter_width=15|31)."""
    spec = spec.replace("~", " ")  # a space inside a value: variant=float4~aligned=off
    head = spec.split("@", 1)[0]
    if ":" in head:
        csv_name, spec = spec.split(":", 1)
    if not os.path.exists(os.path.join(RESULTS, csv_name + ".csv")):
        raise SystemExit("docs.py: value '{}' names {}.csv, which docs/results does not have".format(spec, csv_name))
    rows = load(csv_name)
    step, _, cond = spec.partition("@")
    step, _, variant = step.partition("/")
    match = {"step": step} if step else {}
    if variant:
        match["variant"] = variant
    for kv in filter(None, cond.split(",")):
        k, _, v = kv.partition("=")
        if rows and k not in rows[0]:
            raise SystemExit("docs.py: value '{}': {}.csv has no column '{}'".format(spec, csv_name, k))
        match[k] = v
    return [r for r in rows if all(r.get(k) in v.split("|") for k, v in match.items())]


def row_of(csv_name, spec):
    found = rows_matching(csv_name, spec)
    if len(found) != 1:
        raise SystemExit("docs.py: value '{}' matches {} rows of {}.csv, not one".format(spec, len(found), csv_name))
    return found[0]


def number(row, column, spec):
    try:
        return float(row[column])
    except (KeyError, ValueError):
        raise SystemExit("docs.py: value '{}': column '{}' is not a number ({!r})".format(spec, column, row.get(column)))


def over_values(csv_name, a, b, over, column):
    """(time(a), time(b)) for every value of a column in
    over = COLUMN=FIRST..LAST[:STEP] (or COLUMN=V1|V2|...) that both rows
    have. a and b may each match several rows (every peer against ours):
    every pair counts."""
    values = [None]
    if over:
        name, _, span = over.partition("=")
        if ".." in span:
            first, _, rest = span.partition("..")
            last, _, step = rest.partition(":")
            values = [str(v) for v in range(int(first), int(last) + 1, int(step or 1))]
        else:
            values = span.split("|")
    pairs = []
    for v in values:
        if v is None:
            specs = [a, b]
        else:
            cond = "{}={}".format(name, v)
            specs = [r + ("," if "@" in r else "@") + cond for r in (a, b)]
        if not all(rows_matching(csv_name, r) for r in specs):
            continue  # a value the run did not measure
        pairs += [(number(ra, column, specs[0]), number(rb, column, specs[1]))
                  for ra in rows_matching(csv_name, specs[0]) for rb in rows_matching(csv_name, specs[1])]
    if not pairs:
        raise SystemExit("docs.py: no rows of {}.csv for {} and {} over {}".format(csv_name, a, b, over))
    return pairs


def show(form, v):
    text = fmt(v) if form == "{:.2f}" and abs(v) >= 10 else form.format(v)  # 12.0, 172: no false precision
    return text.lstrip("-") if float(text) == 0 else text  # no "-0"


def span_text(values, form):
    lo, hi = show(form, min(values)), show(form, max(values))
    return lo if lo == hi else "{} to {}".format(lo, hi)


# How each kind turns two times a (first row) and b (second row) into a figure.
PAIR = {
    "speedup": (lambda a, b: a / b, "{:.2f}"),          # how many times faster the second row is
    "ratio": (lambda a, b: b / a, "{:.2f}"),            # the second row's time over the first's
    "percent": (lambda a, b: 100 * (b / a - 1), "{:.0f}"),  # how much slower (+) or faster (-) the second is, in %
    "saving": (lambda a, b: 100 * (1 - b / a), "{:.0f}"),   # the share of the first's time the second saves, in %
    "share": (lambda a, b: 100 * b / a, "{:.0f}"),      # the second as a percentage of the first
}
KINDS = sorted(PAIR) + sorted(k + "s" for k in PAIR) + ["column", "columns", "limit", "at-limit", "ridge"]


def measured_limit(csv_name, which):
    """The copy GB/s or FMA GFLOP/s measured on a CSV's device, as the
    results page's device table derives it from the steps' % of limit."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pages import results
    copy, fma = results.limits(load(csv_name))
    rate = {"copy": copy, "fma": fma}.get(which)
    if rate is None:
        raise SystemExit("docs.py: {}.csv gives no measured '{}' limit (copy or fma)".format(csv_name, which))
    return rate


def at_limit_us(csv_name, spec, which, limit_csv):
    """Microseconds the row's problem (bytes and flops as common/machinery/report.cpp
    counts them) takes at the device's measured copy or FMA rate."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pages import results
    flops, nbytes = results.work(row_of(csv_name, spec))
    rate = measured_limit(limit_csv, which)
    return (nbytes if which == "copy" else flops) / (rate * 1e3)


def value_text(spec):
    """The text of one value marker. Kinds:
      speedup|ratio|percent|saving|share CSV ROW_A ROW_B     one figure from two rows
      speedups|ratios|percents|savings|shares CSV A B [COLUMN=FIRST..LAST[:STEP] or COLUMN=V1|V2]
                                     'LO to HI' over a column's values, and over
                                     every pair of rows A and B match
      column CSV ROW COLUMN           one cell, formatted like the tables
      limit CSV copy|fma              the device's measured copy GB/s or FMA GFLOP/s
      ridge CSV                       the narrowest filter width that is compute-bound
                                     there (as the results page's device table says)
      at-limit CSV ROW copy|fma [LIMIT_CSV]   microseconds the row's problem takes at
                                     that limit (measured in LIMIT_CSV's run, default CSV)
      columns CSV ROWS COLUMN         'LO to HI' of a column over every row ROWS matches
    A trailing col=NAME compares that column instead of median_ms."""
    words = spec.split()
    column = "median_ms"
    for w in list(words):
        if w.startswith("col="):
            column = w[4:]
            words.remove(w)
    if len(words) < 2 or (len(words) < 3 and words[0] != "ridge"):
        raise SystemExit("docs.py: value '{}' is too short (KIND CSV ROW...)".format(spec))
    kind, csv_name, *rest = words
    if kind in PAIR and len(rest) == 2:
        f, form = PAIR[kind]
        a, b = (number(row_of(csv_name, r), column, r) for r in rest)
        return show(form, f(a, b))
    if kind.endswith("s") and kind[:-1] in PAIR and len(rest) in (2, 3):
        f, form = PAIR[kind[:-1]]
        over = rest[2] if len(rest) == 3 else None
        return span_text([f(a, b) for a, b in over_values(csv_name, rest[0], rest[1], over, column)], form)
    if kind == "ridge" and not rest:
        copy, fma = measured_limit(csv_name, "copy"), measured_limit(csv_name, "fma")
        return str(next(w for w in range(1, 1000) if 2.0 * w * w / 8 >= fma / copy))
    if kind == "limit" and len(rest) == 1:
        return fmt(measured_limit(csv_name, rest[0]))
    if kind == "at-limit" and len(rest) in (2, 3):
        return fmt(at_limit_us(csv_name, rest[0], rest[1], rest[2] if len(rest) == 3 else csv_name))
    if kind == "column" and len(rest) == 2:
        return fmt(row_of(csv_name, rest[0])[rest[1]])
    if kind == "columns" and len(rest) == 2:
        rows = rows_matching(csv_name, rest[0])
        if not rows:
            raise SystemExit("docs.py: value '{}' matches no rows of {}.csv".format(rest[0], csv_name))
        vals = [number(r, rest[1], rest[0]) for r in rows]
        lo, hi = fmt(min(vals)), fmt(max(vals))
        return lo if lo == hi else "{} to {}".format(lo, hi)
    raise SystemExit("docs.py: value '{}': unknown kind or wrong number of rows (kinds: {})".format(
        spec, ", ".join(KINDS)))


# A claim the prose makes in words ("faster at every size") is pinned to the
# CSVs by a claim marker, which renders nothing and fails --check when the
# figures stop bearing it out:
#     <!-- claim: ratios vector-pocl A B width=1900..2048 < 1 -->
# Every number of the value (both ends of a range) must satisfy the test.
CLAIM = re.compile(r"<!-- claim: ([^>]*?) (<|<=|>|>=) (-?[0-9.]+) -->")


def broken_claims(text):
    out = []
    for m in re.finditer(r"<!-- claim:(.*?)-->", text, re.S):
        if not CLAIM.fullmatch(m.group(0)):
            out.append((text.count("\n", 0, m.start()) + 1,
                        "claim marker not understood: '{}' (<!-- claim: KIND CSV ... OP NUMBER -->)".format(
                            m.group(1).strip())))
    for m in CLAIM.finditer(text):
        got = value_text(m.group(1))
        limit = float(m.group(3))
        test = {"<": lambda v: v < limit, "<=": lambda v: v <= limit,
                ">": lambda v: v > limit, ">=": lambda v: v >= limit}[m.group(2)]
        if not all(test(float(v)) for v in re.findall(r"-?\d+(?:\.\d+)?", got)):
            out.append((text.count("\n", 0, m.start()) + 1,
                        "claim no longer holds: {} is {}, not {} {}".format(m.group(1), got, m.group(2), m.group(3))))
    return out


def render_values(text):
    return VALUE.sub(lambda m: "<!-- value: {} -->{}<!-- end value -->".format(m.group(1), value_text(m.group(1))),
                     text)


# ---- figures typed into the prose --------------------------------------------
# A measured figure in a sentence must be a value marker, so that it is
# regenerated from its CSV. The check below flags any number followed by a
# unit of time, rate, share or ratio (ms, µs, %, x, GB/s, GFLOP/s, "times")
# in prose: outside value markers, generated blocks, tables, code and
# comments. A figure that is not a measurement of this course (a number
# quoted from a source document, a rule of thumb, a definition such as
# "100 % of the limit") is wrapped in a literal marker that names where it
# comes from:
#
#     <!-- literal: the histogram post, table 3 -->45 to 48 %<!-- end literal -->
#
# A page that is still being converted can be listed in PROSE_PENDING: its
# findings are printed as warnings and do not fail --check.
FIGURE = re.compile(r"(?<![\w.\-/])(\d+(?:\.\d+)?(?:\s*(?:-|–|to)\s*\d+(?:\.\d+)?)?)"
                    r"(\s*(?:ms|µs|us|%|GB/s|TB/s|GFLOP/s|TFLOP/s|times)|x|×)(?![\w/])")
LITERAL = re.compile(r"<!-- literal:(.*?)-->(.*?)<!-- end literal -->", re.S)
# PAGE or PAGE#HEADING (that section, down to the next heading of its level
# or above) -> why its findings do not fail --check yet. Remove an entry once
# `python3 docgen/docs.py --check PAGE` reports nothing there.
PROSE_PENDING = {}


def section_of(text, line):
    """The heading (its text) of the section a line is in, and the heading
    of every enclosing section, innermost first."""
    stack = []
    fence = False
    for n, l in enumerate(text.split("\n"), 1):
        if n > line:
            break
        if l.strip().startswith("```"):
            fence = not fence
        m = re.match(r"(#+) +(.*?) *$", l)
        if m and not fence:
            level = len(m.group(1))
            stack = [(lv, h) for lv, h in stack if lv < level] + [(level, m.group(2))]
    return [h for _, h in reversed(stack)]


def prose_findings(text):
    """(line, figure, message) for each typed figure and each literal
    marker that names no source."""
    found = []

    def blank(m):  # keep line numbers
        return "\n" * m.group(0).count("\n")

    for m in LITERAL.finditer(text):
        if not m.group(1).strip():
            found.append((text.count("\n", 0, m.start()) + 1, m.group(2),
                          "literal marker without a source (<!-- literal: WHERE IT COMES FROM -->)"))
    text = BLOCK.sub(blank, text)
    text = VALUE.sub("", text)
    text = LITERAL.sub(blank, text)
    text = re.sub(r"<!--.*?-->", blank, text, flags=re.S)
    fence = False  # (claims are checked by broken_claims)
    for n, line in enumerate(text.split("\n"), 1):
        if line.strip().startswith("```"):
            fence = not fence
            continue
        if fence or line.lstrip().startswith("|"):
            continue
        for m in FIGURE.finditer(re.sub(r"`[^`]*`", "", line)):
            found.append((n, m.group(0).strip(), "typed figure: make it a value marker, or a literal "
                          "marker naming its source"))
    return found


def check_prose(pages):
    """Prints each finding; returns how many fail and how many are only
    warnings (PROSE_PENDING's)."""
    failing = warned = 0
    for page in pages:
        rel = os.path.relpath(page, ROOT)
        with open(page) as f:
            text = f.read()
        found = prose_findings(text) + [(n, "", msg) for n, msg in broken_claims(text)]
        for line, figure, message in found:
            pending = PROSE_PENDING.get(rel) or next(
                (PROSE_PENDING[rel + "#" + h] for h in section_of(text, line) if rel + "#" + h in PROSE_PENDING), None)
            failing += 0 if pending else 1
            warned += 1 if pending else 0
            print("{}:{}: {}{}{}".format(rel, line, "warning (pending: {}): ".format(pending) if pending else "",
                                         "'{}': ".format(figure) if figure else "", message))
    return failing, warned


GENERATORS = {"diff": kernel_diff, "steps1to4": steps1to4, "steps1to4-wg": steps1to4_wg, "wg-shapes": wg_shapes, "unroll-widths": unroll_widths,
              "tour": tour, "source": source, "reading": reading}


def plugins():
    """The lesson modules in docgen/pages/: each may define GENERATORS (a dict
    like the one above) and figures(plt), which draws its own SVGs."""
    import importlib
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    mods = []
    for path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pages", "*.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        if not name.startswith("_"):
            mods.append(importlib.import_module("pages." + name))
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
    tags = [t for t in ("pocl", "h100") if os.path.exists(os.path.join(RESULTS, "unroll-widths-%s.csv" % t))]
    if tags:
        fig, axes = plt.subplots(1, len(tags), figsize=(5.5 * len(tags), 3.8), squeeze=False)
        for ax, tag in zip(axes[0], tags):
            rows = load("unroll-widths-" + tag)
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
        fig.savefig(os.path.join(FIGURES, "unroll-widths-sawtooth.svg"), metadata={"Date": None})
        plt.close(fig)
    for mod in PLUGINS:
        if hasattr(mod, "figures"):
            mod.figures(plt)


def pages():
    return [os.path.join(ROOT, "README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))


def main():
    PLUGINS.extend(plugins())
    for mod in PLUGINS:
        GENERATORS.update(getattr(mod, "GENERATORS", {}))
    args = sys.argv[1:]
    check = "--check" in args
    named = [os.path.abspath(a) for a in args if not a.startswith("--")]
    stale = []
    for page in named or pages():
        with open(page) as f:
            text = f.read()
        new = render_values(BLOCK.sub(lambda m: m.group(1) + render(m.group(2)) + m.group(4), text))
        if new != text:
            stale.append(os.path.relpath(page, ROOT))
            if not check:
                with open(page, "w") as f:
                    f.write(new)
    for mod in PLUGINS if not named else []:  # plain-SVG diagrams: no matplotlib, so checked too
        for name, svg in (mod.diagrams() if hasattr(mod, "diagrams") else {}).items():
            path = os.path.join(FIGURES, name)
            old = open(path).read() if os.path.exists(path) else None
            if old != svg:
                stale.append(os.path.relpath(path, ROOT))
                if not check:
                    os.makedirs(FIGURES, exist_ok=True)
                    with open(path, "w") as f:
                        f.write(svg)
    typed, warned = check_prose(named or pages())
    if check:
        if stale:
            print("docs.py: out of date (run python3 docgen/docs.py): " + ", ".join(stale))
        if typed:
            print("docs.py: {} finding(s) in the prose: typed figures, literals without a source, claims the CSVs do not bear out (see above)".format(typed))
        if stale or typed:
            return 1
        print("docs.py: every generated block and value matches docs/results; no typed figures{}".format(
            " but the {} warnings above, on pages still pending (PROSE_PENDING)".format(warned) if warned else ""))
        return 0
    if not named:
        figures()
    for p in stale:
        print("docs.py: updated " + p)
    return 1 if typed else 0


if __name__ == "__main__":
    sys.exit(main())
