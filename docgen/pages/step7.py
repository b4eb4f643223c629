# Step 6's and step 7's tables (docs/step6-multioutput.md, docs/step7-tuned.md):
# steps 5, 6 and 7 at their defaults (steps567-TAG.csv), every candidate of
# step 7's tuner (tuned-TAG.csv, build/bin/step7-tuned --tune --output), and
# each device's winners run on the other device (cross-TAG.csv).
import os
import re

from tables import load, table, fmt, caption, pick, FIGURES, RESULTS, ROOT

STEP5, STEP6, STEP7 = "step5-vector", "step6-multioutput", "step7-tuned"


def _exists(name):
    return os.path.exists(os.path.join(RESULTS, name + ".csv"))


def _widths(rows):
    return sorted({int(r["filter_width"]) for r in rows})


def _row(rows, step, width):
    """The row of one step at one width (the first, if the run has several)."""
    return pick(rows, step=step, filter_width=str(width))


def _ms(r):
    return float(r["median_ms"])


def _limit(r):
    return "{} % {}".format(fmt(r["pct_limit"]), r["limit"]) if r and r["pct_limit"] else "-"


def _rates(rows):
    """The copy GB/s and FMA GFLOP/s a run measured, as its rows' shares
    of them imply (each row names the limit that binds it)."""
    rates = {}
    for kind, column in (("copy", "gbps"), ("fma", "gflops")):
        found = sorted(float(r[column]) * 100 / float(r["pct_limit"]) for r in rows
                       if r["limit"] == kind and r["pct_limit"])
        if found:
            rates[kind] = found[len(found) // 2]
    return rates


def _share(r, rates):
    """A row's share of the binding limit, against another run's limits
    (the larger of its copy and FMA shares), as "P % KIND"."""
    shares = [(100 * float(r[column]) / rates[kind], kind)
              for kind, column in (("copy", "gbps"), ("fma", "gflops")) if kind in rates]
    if len(shares) < 2:
        return _limit(r)
    pct, kind = max(shares)
    return "{} % {}".format(fmt(pct), kind)


def _command(tag, fallback, tuner=True):
    """The command that made a device's step 7 files, as the header of its
    tuned-step7-TAG.txt names it (bench/tune-steps.sh ...); where the
    header names several ("... and bench/tune-steps.sh ..."), each in turn.
    tuner=False: only the runs of bench/tune-steps.sh, which made the
    steps' CSV too (a later build/bin/step7-tuned --tune made tuner rows
    alone)."""
    path = os.path.join(RESULTS, "tuned-step7-{}.txt".format(tag))
    if os.path.exists(path):
        with open(path) as f:
            head = f.readline()
        if "bench/tune-steps.sh" in head:
            commands = head[head.index("bench/tune-steps.sh"):].strip().split(" and ")
            if not tuner:
                commands = [c for c in commands if c.startswith("bench/tune-steps.sh")]
            return "` and `".join(commands)
    return fallback


def _problem(rows):
    r = rows[0]
    kinds = sorted({x["filter"].split(":")[0] for x in rows})
    return "{}x{}, {} filters, median of {} launches".format(r["width"], r["height"], " and ".join(kinds), r["reps"])


def steps56(tag):
    """Step 6 against step 5, each at its defaults, at every width of the run."""
    rows = load("steps567-" + tag)
    body = []
    for w in _widths(rows):
        s5, s6 = _row(rows, STEP5, w), _row(rows, STEP6, w)
        if not (s5 and s6):
            continue
        body.append(["F = {}".format(w), fmt(s5["median_ms"]), fmt(s6["median_ms"]),
                     "{:.2f}x".format(_ms(s5) / _ms(s6)), _limit(s5), _limit(s6)])
    return table(["filter", "step 5, ms", "step 6, ms", "step 6 over step 5", "step 5: % of limit",
                  "step 6: % of limit"], body) + caption(rows, _command(tag, "docs/results/steps567-{}.csv".format(tag),
                                                                  tuner=False)) + (
        "\n{}, work-group {}; % of limit: the roofline bound's time over the measured time.\n".format(
            _problem(rows), _row(rows, STEP6, _widths(rows)[0])["wg"]))


def winners(tag):
    """{width: (fastest row, defaults row, candidates timed)} of the tuner's
    CSV; the defaults are each width's first candidate (the tuner times
    them first)."""
    out = {}
    for r in load("tuned-" + tag):
        w = int(r["filter_width"])
        best, first, n = out.get(w, (None, r, 0))
        if best is None or _ms(r) < _ms(best):
            best = r
        out[w] = (best, first, n + 1)
    return out


def config(variant):
    """The configuration text without its work-group (a column of its own)."""
    return " ".join(p for p in variant.split() if not p.startswith("wg="))


def step7(tag):
    """Step 6, step 7 at its defaults and step 7 tuned, at every width."""
    rows = load("steps567-" + tag)
    tuned = winners(tag) if _exists("tuned-" + tag) else {}
    rates = _rates(rows)
    body = []
    for w in _widths(rows):
        s6, s7 = _row(rows, STEP6, w), _row(rows, STEP7, w)
        line = ["F = {}".format(w), fmt(s6["median_ms"]) if s6 else "-", fmt(s7["median_ms"]) if s7 else "-"]
        if tuned:
            if w in tuned:
                best, first, n = tuned[w]
                line += ["{} ({}, wg {})".format(fmt(best["median_ms"]), config(best["variant"]), best["wg"]), str(n),
                         "{:.2f}x".format(_ms(first) / _ms(best)), _share(best, rates)]
            else:
                line += ["not tuned", "-", "-", "-"]
        else:
            line.append(_limit(s7))
        body.append(line)
    header = ["filter", "step 6, ms", "step 7, defaults, ms"]
    header += ["step 7 tuned, ms (configuration)", "candidates timed", "tuned over defaults",
               "tuned: % of limit"] if tuned else \
        ["step 7, defaults: % of limit"]
    text = table(header, body) + caption(rows, _command(tag, "docs/results/steps567-{}.csv".format(tag)))
    if tuned:
        t = load("tuned-" + tag)
        if _command(tag, None) is None:  # the steps' run and the tuner's came from one command otherwise
            text += caption(t, "build/bin/step7-tuned --tune --image synthetic:{}x{} --reps {} --output "
                               "docs/results/tuned-{}.csv".format(t[0]["width"], t[0]["height"], t[0]["reps"], tag))
        text += ("\nSteps 6 and 7 at their defaults: {}. Tuned: the fastest candidate the tuner timed at that "
                 "width, random filters; *tuned over defaults*: the defaults' time over the winner's, both from the "
                 "tuner's run; % of limit: against the device's limits as measured in the run of steps 6 and 7."
                 "\n").format(_problem(rows))
    else:
        text += "\n{}.\n".format(_problem(rows))
    return text


def _config_of(r):
    """The configuration of a row of a cross run (sweep's variant text, its
    work-group in the wg column) or of the tuner's CSV (the whole text)."""
    words = [w for w in r["variant"].split() if w != "default" and not w.startswith("wg=")]
    return " ".join(words), r["wg"]


def _skipped(tag):
    """(width, configuration, (KiB needed, KiB the device has)) for each
    run that a cross run's log (cross-TAG.txt: sweep's lines) says was
    skipped for its tile."""
    import re
    path = os.path.join(RESULTS, "cross-{}.txt".format(tag))
    if not os.path.exists(path):
        return []
    out, run = [], None
    for line in open(path):
        m = re.match(r"sweep: \[\d+/\d+\] \S+ default (.*?), \d+x\d+, \w+:(\d+), wg (\S+)", line)
        if m:
            run = (int(m.group(2)), "{} (wg {})".format(m.group(1), m.group(3)))
            continue
        m = re.match(r"== F = (\d+): (.*) wg=(\S+)$", line.strip())  # bench/tune-steps.sh's own heading
        if m:
            run = (int(m.group(1)), "{} (wg {})".format(m.group(2), m.group(3)))
            continue
        m = re.match(r"sweep: skipped: a (\S+) tile .*? needs (\d+) bytes of local memory.*?limit of (\d+) bytes", line)
        if m and run:
            out.append((run[0], run[1], (int(m.group(2)) // 1024, int(m.group(3)) // 1024)))
            run = None
    return out


def cross():
    """What each device's winners do on the other device: the time there
    against that device's own winner and defaults at the same width."""
    body = []
    for tag in ("h100", "pocl"):
        if not _exists("tuned-" + tag):
            continue
        own = winners(tag)
        steps = load("steps567-" + tag) if _exists("steps567-" + tag) else []
        device = load("tuned-" + tag)[0]["device"]
        skipped = _skipped(tag)
        if skipped:  # one row: the same reason at every width
            widths = [w for w, _, _ in skipped]
            sizes = sorted(k[0] for _, _, k in skipped)
            limit = skipped[0][2][1]
            span = "F = {}".format(widths[0]) if len(widths) == 1 else "F = {} to {}".format(min(widths), max(widths))
            need = "{} KiB".format(sizes[0]) if sizes[0] == sizes[-1] else "{} to {} KiB".format(sizes[0], sizes[-1])
            shapes = sorted({"{} groups of {} blocks".format(c.split("(wg ")[1].rstrip(")"),
                                                             c.split("block=")[1].split()[0]) for _, c, _ in skipped})
            body.append([device, span, "each ({})".format(", ".join(shapes)),
                "does not run: the tile needs {} of local memory, the device has {} KiB".format(need, limit),
                "-", "-", "-"])
        if not _exists("cross-" + tag):
            continue
        for r in load("cross-" + tag):
            w = int(r["filter_width"])
            config, wg = _config_of(r)
            home = own.get(w, (None,))[0]
            defaults = _row(steps, STEP7, w) if steps else None
            body.append([r["device"], "F = {}".format(w), "{} (wg {})".format(config, wg), fmt(r["median_ms"]),
                         fmt(home["median_ms"]) if home else "-", fmt(defaults["median_ms"]) if defaults else "-",
                         "{:.2f}x".format(_ms(r) / _ms(home)) if home else "-"])
    if not body:
        return "\n*No cross runs in docs/results.*\n"
    return table(["run on", "filter", "the other device's winner", "its ms here", "this device's winner, ms",
                  "this device's defaults, ms", "over this device's winner"], body) + (
        "\n*Each device's tuned winners run on the other device, with their options given (`bench/tune-steps.sh` "
        "with `CROSS=`: `docs/results/cross-pocl.csv`, box filters; `cross-h100.txt`, the sweep's log), beside that device's own winner (`tuned-*.csv`, random "
        "filters) and its step 7 defaults (`steps567-*.csv`, the same filters as the cross run); {}. "
        "Above 1: slower than this device's winner.*\n").format(
        ", ".join(sorted({r["date"] for tag in ("h100", "pocl") if _exists("cross-" + tag) for r in load("cross-" + tag)})))


KINDS = [("tile on, rows", lambda v: "tile=on" in v and "shape=rows" in v),
         ("tile on, vectors", lambda v: "shape=vectors" in v),
         ("tile off", lambda v: "tile=off" in v),
         ("weights constant", lambda v: "weights=constant" in v),
         ("weights inline", lambda v: "weights=inline" in v),
         ("weights local", lambda v: "weights=local" in v)]


def kinds(tag):
    """The fastest candidate of each kind at every width of a tuner run, as
    a multiple of the winner's time, and how many candidates tie with it."""
    rows = load("tuned-" + tag)
    body = []
    for w, (best, _, n) in sorted(winners(tag).items()):
        here = [r for r in rows if int(r["filter_width"]) == w]
        line = ["F = {}".format(w), str(n), fmt(best["median_ms"])]
        for _, test in KINDS:
            found = [r for r in here if test(r["variant"])]
            line.append(fmt(min(_ms(r) for r in found) / _ms(best)) if found else "-")
        line.append(str(sum(1 for r in here if _ms(r) <= 1.02 * _ms(best))))
        body.append(line)
    return table(["filter", "timed", "winner, ms"] + ["{} (x winner)".format(k) for k, _ in KINDS] +
                 ["within 2 % of the winner"], body) + caption(rows, _command(tag, "docs/results/tuned-{}.csv".format(tag))) + (
        "\nEach kind's column: its fastest candidate's time over the winner's (1.00: the winner is of that kind); "
        "'-': the search timed none of that kind at that width. {}x{}, random filters, median of {} launches.\n".format(
            rows[0]["width"], rows[0]["height"], rows[0]["reps"]))


def vs_opencv(tag):
    """Step 7 at its defaults and as tuned against OpenCV in one run
    (bench/vs-opencv.sh --save), with the goal: both faster than filter2D
    at its best (the faster of its thread counts) at every width."""
    name = "vs-opencv-step7-" + tag
    rows = load(name)
    load_path = os.path.join(RESULTS, name + "-load.txt")
    load_note = open(load_path).read().strip() if os.path.exists(load_path) else "not recorded"
    rounds = re.search(r"; rounds: (\d+)$", load_note)
    if rounds:
        load_note = load_note[:rounds.start()]
    per_row = ("the median of {} rounds, each a median over {} calls in processes of its own".format(rounds.group(1), rows[0]["reps"])
               if rounds else "Median ms over {} calls".format(rows[0]["reps"]))
    body = []
    for w in sorted({int(r["filter_width"]) for r in rows}):
        d = pick(rows, step=STEP7, variant="defaults", filter_width=str(w))
        t = pick(rows, step=STEP7, variant="tuned", filter_width=str(w))
        f2d = {r["variant"]: r for r in rows if r["step"] == "opencv.filter2D" and int(r["filter_width"]) == w}
        seps = [r for r in rows if r["step"] == "opencv.sepFilter2D" and int(r["filter_width"]) == w]
        if not (d and t and f2d):
            continue
        best = min(f2d.values(), key=_ms)
        sep = min(seps, key=_ms) if seps else None
        met = _ms(d) < _ms(best) and _ms(t) < _ms(best)
        body.append(["F = {}".format(w), fmt(d["median_ms"]), fmt(t["median_ms"]),
                     "{} % {}".format(fmt(t["pct_limit"]), t["limit"]),
                     fmt(f2d["threads=1"]["median_ms"]) if "threads=1" in f2d else "-",
                     fmt(f2d["threads=2"]["median_ms"]) if "threads=2" in f2d else "-",
                     "{} ({})".format(fmt(sep["median_ms"]), sep["variant"]) if sep else "-",
                     "{:.2f}x".format(_ms(best) / _ms(d)), "{:.2f}x".format(_ms(best) / _ms(t)),
                     "met" if met else "not met"])
    r = rows[0]
    return table(["filter", "step 7 defaults, ms", "step 7 tuned, ms", "tuned: % of limit", "filter2D 1 thread",
                  "filter2D 2 threads", "sepFilter2D, fastest", "filter2D / defaults", "filter2D / tuned",
                  "both faster than filter2D"], body) + caption(
        rows, "bench/vs-opencv.sh --save docs/results/{}.csv".format(name)) + (
        "\n{}, {}x{}, box filters; tuned: the winners of `tuned-step7-{}.txt`; filter2D: "
        "the faster of its two thread counts (OpenCV's own `parallel_for`). Machine load during the run, "
        "{}.\n".format(per_row[0].upper() + per_row[1:], r["width"], r["height"], tag, load_note))


GENERATORS = {"step6-steps56": steps56, "step7-tuned": step7, "step7-cross": cross, "step7-kinds": kinds,
              "step7-vs-opencv": vs_opencv}
