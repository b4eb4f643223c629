# Step 6's tables and figure (docs/step6-multioutput.md), from the CSVs of
# bench/experiments.sh blocks|tuning|unroll|perf|bank|volume TAG,
# bench/torch_conv2d.py (torch-TAG), bench/cupy_correlate.py (cupy-TAG) and
# build/bin/kernel-info (kernel-info-TAG.txt, ptx-mix-TAG.txt, sass-mix-TAG.txt),
# bench/experiments.sh inline and bench/device-run.sh part buildtime.
import os
import sys
import re

from tables import load, table, fmt, caption, pick, stored_winners, FIGURES, RESULTS, ROOT

WIDTHS = ["3", "5", "7", "15", "31"]
# The goals at 8192x8192 on a GPU (the lesson's performance section): within
# about 90 % of the copy floor where the copy bandwidth binds, at least 70 %
# of the FMA rate where the arithmetic does; both measured in the same run.
GOAL_COPY, GOAL_FMA = 90.0, 70.0
SMEM_PER_SM = 228 * 1024  # shared memory an H100/H200 SM gives its resident groups
PEERS = {"h200": [("torch-h200", "torch"), ("cupy-h200", "cupy")], "h100": [("torch-h100", "torch")]}


def _peer_rows(tag):
    out = []
    for name, _ in PEERS.get(tag, []):
        if os.path.exists(os.path.join(RESULTS, name + ".csv")):
            out += load(name)
    return out


def blocks(tag):
    """Median ms of every block at work-group 16x16, and the best of all shapes."""
    rows = load("blocks-" + tag)
    names = []
    for r in rows:
        b = r["variant"].split("block=")[1]
        if b not in names:
            names.append(b)
    body = []
    for w in WIDTHS:
        line = ["F = " + w]
        for b in names:
            r = pick(rows, filter_width=w, wg="16x16", variant="default block=" + b)
            line.append(fmt(r["median_ms"]) if r else "-")
        cands = [r for r in rows if r["filter_width"] == w]
        best = min(cands, key=lambda r: float(r["median_ms"]))
        line.append("{} ms: {}, wg {}".format(fmt(best["median_ms"]), best["variant"].split("=")[1], best["wg"]))
        body.append(line)
    return table(["filter"] + ["block " + b for b in names] + ["fastest of all work-groups"], body) + caption(
        rows, "bench/experiments.sh blocks " + tag) + (
        "\nMedian ms over {} launches at {}x{}; work-group 16x16 except in the last column; "
        "\"-\": the tile does not fit in local memory.\n".format(rows[0]["reps"], rows[0]["width"], rows[0]["height"]))


# OpenCL's local memory per work-group on NVIDIA's H100 and H200, as the
# driver reports it (the launcher's check and the cross runs' logs name it).
LOCAL_MEM = 48 * 1024


def _ran(variant, winner, F=None, wg=None):
    """What a row of step 7's sweep ran where the options it leaves to auto
    came from a stored winner: the options its variant names, the rest the
    winner's, with the launcher's rules (resolve in step7-tuned/launcher.cpp):
    a flat copy or the vector shape named with the tile left to auto brings
    the tile; without the tile, the rows shape and the rows copy; and, given
    the width F and the work-group wg, a block left to auto whose tile is
    over the local memory is halved in height until it fits."""
    named = {k: v for k, v in (kv.split("=", 1) for kv in variant.split()[1:]) if v != "auto"}
    c = dict(winner)
    c.update(named)
    if "tile" not in named and (named.get("shape") == "vectors" or named.get("copy") == "flat"):
        c["tile"] = "on"
    if c["tile"] == "off":
        c["shape"] = named.get("shape", "rows")
        c["copy"] = named.get("copy", "rows")
    elif F and wg and "block" not in named:
        bx, by = (int(v) for v in c["block"].split("x"))
        gx, gy = (int(v) for v in wg.split("x"))
        weights = 4 * F * (-(-F // 4) * 4) if c["weights"] == "local" else 0

        def over(by):
            return 4 * (-(-(gx * bx + F - 1) // 4) * 4) * (gy * by + F - 1) + weights + 1024 > LOCAL_MEM
        while by > 1 and over(by):
            by //= 2
        c["block"] = "{}x{}".format(bx, by)
    return c


def _winners_note(tag):
    return ("each width's stored winner (`tuned-step7-{0}.txt`: the run had its lines in the store, "
            "`$XDG_CACHE_HOME/clconv/tuned-step7.txt`)").format(tag)


def _widths_text(widths):
    """["5", "7"] -> "F = 5 and 7"."""
    return "F = " + (widths[0] if len(widths) == 1 else ", ".join(widths[:-1]) + " and " + widths[-1])


def _by_value(winners, widths, option, words):
    """"constant memory at F = 3, compiled in at F = 5 and 7": each value
    of one option of the winners, with the widths that have it."""
    groups = {}
    for w in widths:
        groups.setdefault(winners[w][option], []).append(w)
    return ", ".join("{} at {}".format(words.get(v, v), _widths_text(ws)) for v, ws in groups.items())


WEIGHT_WORDS = {"constant": "constant memory", "local": "local memory", "inline": "compiled in"}


def unroll(tag, base=None):
    """The tile-row loop unrolled or kept. base "winners": the run left the
    other options to auto while the device's store held the tuner's
    winners, so they are each width's winner's (a column names them)."""
    rows = load("unroll-" + tag)
    winners = stored_winners(tag) if base == "winners" else None
    body = []
    tiles = set()
    for w in sorted({r["filter_width"] for r in rows}, key=int):
        for wg in sorted({r["wg"] for r in rows}):
            on = pick(rows, filter_width=w, wg=wg, variant="default unroll=on")
            off = pick(rows, filter_width=w, wg=wg, variant="default unroll=off")
            if on and off:
                line = ["F = " + w, wg]
                if winners:
                    c = _ran(on["variant"], winners[w])
                    tiles.add(c["tile"])
                    line.append("{}, {}".format(c["weights"], c["block"]))
                body.append(line + [fmt(off["median_ms"]), fmt(on["median_ms"]),
                                    "{:.2f}x".format(float(off["median_ms"]) / float(on["median_ms"]))])
    header = ["filter", "work-group"] + (["weights, block"] if winners else []) + [
        "rows loop (ms)", "rows unrolled (ms)", "gain"]
    text = table(header, body) + caption(rows, "bench/experiments.sh unroll " + tag)
    if winners:
        text += ("\nMedian ms over {} launches at {}x{}, box filters, {}; the weights and the block "
                 "as {} has them.\n".format(rows[0]["reps"], rows[0]["width"], rows[0]["height"],
                                         "without the tile" if tiles == {"off"} else "with the tile",
                                         _winners_note(tag)))
    return text


def perf(tag, script="experiments"):
    """Every step at every width; step 6 beside its goal and the best peer where measured.
    `script`: which command made the CSV (bench/experiments.sh perf, or
    bench/results.sh, which adds the serial baseline and OpenCV)."""
    rows = load("perf-" + tag)
    peers = _peer_rows(tag) + [r for r in rows if r["step"].startswith(("opencv.", "scipy."))]
    steps = []
    for r in rows:
        if r["step"].startswith("step") and r["step"] not in steps:
            steps.append(r["step"])
    gpu = script == "experiments"
    body = []
    for w in WIDTHS:
        line = ["F = " + w]
        for s in steps:
            r = pick(rows, step=s, filter_width=w)
            line.append(fmt(r["median_ms"]) if r else "-")
        s6 = pick(rows, step="step6-multioutput", filter_width=w)
        line.append("{} % {}".format(fmt(s6["pct_limit"]), s6["limit"]) if s6 else "-")
        cands = [r for r in peers if r["filter_width"] == w]
        if cands:
            p = min(cands, key=lambda r: float(r["median_ms"]))
            line.append("{} ({} {})".format(fmt(p["median_ms"]), p["step"], p["variant"]))
            line.append("{:.2f}x".format(float(p["median_ms"]) / float(s6["median_ms"])) if s6 else "-")
        if gpu and s6:
            pct = float(s6["pct_limit"])
            if s6["limit"] == "copy":
                floor = float(s6["median_ms"]) * pct / 100
                goal = floor / (GOAL_COPY / 100)
                line.append("≤ {} ms ({:.0f} % copy): {}".format(fmt(goal), GOAL_COPY,
                                                          "met" if float(s6["median_ms"]) <= goal else "not met"))
            else:
                line.append("≥ {:.0f} % FMA: {}".format(GOAL_FMA, "met" if pct >= GOAL_FMA else "not met"))
        body.append(line)
    header = ["filter"] + [s.split("-")[0] for s in steps] + ["step6: % of limit"]
    if peers:
        header += ["best peer, ms", "best peer / step6"]
    if gpu:
        header.append("goal")
    command = "bench/results.sh " + tag if script == "results" else "bench/experiments.sh perf " + tag
    return table(header, body) + caption(rows, command) + (
        "\nMedian ms over {} launches, {}x{}, box filters, steps 1-5 with work-group 16x16, step 6 "
        "with its default configuration (work-group {}). % of limit: the roofline bound's time "
        "(copy bandwidth for one read of the input and one write of the output, or the FMA peak) "
        "over the measured time. Best peer: the fastest library call at that width in the same "
        "run{}.\n".format(s6["reps"], s6["width"], s6["height"], s6["wg"],
                          " (torch conv2d both ways, cupyx correlate; random filters, which time the "
                          "same as box filters)" if gpu else ""))


def vs_opencv(tag):
    """Step 6's default against OpenCV in one short run (bench/vs-opencv.sh --save), with the CPU goals."""
    rows = load("vs-opencv-" + tag)
    load_path = os.path.join(RESULTS, "vs-opencv-%s-load.txt" % tag)
    load_note = open(load_path).read().strip() if os.path.exists(load_path) else "not recorded"
    body = []
    for w in WIDTHS:
        s6 = pick(rows, step="step6-multioutput", filter_width=w)
        if not s6:
            continue
        f1 = pick(rows, step="opencv.filter2D", variant="threads=1", filter_width=w)
        f2 = pick(rows, step="opencv.filter2D", variant="threads=2", filter_width=w)
        seps = [r for r in rows if r["step"] == "opencv.sepFilter2D" and r["filter_width"] == w]
        sep = min(seps, key=lambda r: float(r["median_ms"])) if seps else None
        ms6 = float(s6["median_ms"])
        if int(w) <= 7:
            goal = "as fast as filter2D, 2 threads: " + ("met" if f2 and ms6 <= float(f2["median_ms"]) else "not met")
        else:
            goal = "≥ 35 % FMA: " + ("met" if s6["limit"] == "fma" and float(s6["pct_limit"]) >= 35 else "not met")
        body.append(["F = " + w, fmt(s6["median_ms"]), "{} % {}".format(fmt(s6["pct_limit"]), s6["limit"]),
                     fmt(f1["median_ms"]) if f1 else "-", fmt(f2["median_ms"]) if f2 else "-",
                     "{} ({})".format(fmt(sep["median_ms"]), sep["variant"]) if sep else "-",
                     "{:.2f}x".format(float(f2["median_ms"]) / ms6) if f2 else "-", goal])
    return table(["filter", "step 6 ms", "step 6: % of limit", "filter2D 1 thread", "filter2D 2 threads",
                  "sepFilter2D, fastest", "filter2D 2t / step 6", "goal"], body) + caption(
        rows, "bench/vs-opencv.sh --save docs/results/vs-opencv-{}.csv".format(tag)) + (
        "\nMeasured when this kernel was step 6 (the script now runs step 7: `vs-opencv-step7-{}.csv`). "
        "Median ms over {} calls, {}x{}, box filters; step 6 with its default configuration. "
        "Machine load during the run, {}.\n".format(tag, s6["reps"], s6["width"], s6["height"], load_note))


def tuning(tag):
    """Per width: the fastest shape of the search, the default's time, and the alternatives."""
    rows = load("tuning-" + tag)

    def best(**match):
        c = [r for r in rows if all(r[k] == v if not callable(v) else v(r[k]) for k, v in match.items())]
        return min(c, key=lambda r: float(r["median_ms"])) if c else None

    def cell(r, full=False):
        if not r:
            return "-"
        v = dict(kv.split("=") for kv in r["variant"].split()[1:])
        text = "{} ms, {} % {}".format(fmt(r["median_ms"]), fmt(r["pct_limit"]), r["limit"])
        return text + (": block {}, wg {}".format(v["block"], r["wg"]) if full else "")

    body = []
    for w in WIDTHS:
        rowsw = dict(filter_width=w)
        weights = "local" if int(w) > 7 else "constant"
        default = best(filter_width=w, wg="32x4",
                       variant=lambda v: "block=4x8" in v and "shape=rows" in v and "weights=" + weights in v
                       and ("unroll=on" if int(w) <= 7 else "unroll=off") in v)
        body.append(["F = " + w, cell(best(**rowsw), True), cell(default),
                     cell(best(filter_width=w, wg="16x16", variant=lambda v: "shape=rows" in v), True),
                     cell(best(filter_width=w, variant=lambda v: "weights=constant" in v and "shape=rows" in v
                               and "unroll=off" in v), True)
                     if int(w) > 7 else "-",
                     cell(best(filter_width=w, variant=lambda v: "unroll=on" in v), True) if int(w) > 7 else "-",
                     cell(best(filter_width=w, variant=lambda v: "shape=vectors" in v), True)])
    header = ["filter", "fastest of the search", "4x8, wg 32x4 (the search's default)", "fastest with wg 16x16",
              "weights in constant memory (loop kept)", "rows unrolled", "vector shape"]
    parts = [name for name, test in (
        ("small", lambda r: int(r["filter_width"]) <= 7 and "shape=rows" in r["variant"]),
        ("large", lambda r: int(r["filter_width"]) > 7 and "shape=rows" in r["variant"] and "unroll=off" in r["variant"]),
        ("unrolled", lambda r: int(r["filter_width"]) > 7 and "shape=rows" in r["variant"] and "unroll=on" in r["variant"]),
        ("vectors", lambda r: "shape=vectors" in r["variant"])) if any(test(r) for r in rows)]
    if len(parts) < 4:  # a run of some parts (TUNING_PARTS): the columns and widths it measured
        keep = [0] + [i for i in range(1, len(header)) if any(line[i] != "-" for line in body)]
        if 1 in keep and any(all(line[1] == line[i] for line in body) for i in keep if i > 1):
            keep.remove(1)  # the fastest of the search is one of the other columns
        header = [header[i] for i in keep]
        body = [[line[i] for i in keep] for line in body if any(line[i] != "-" for i in keep[1:])]
        pieces = {"small": "F = 3 to 7 with the tile-row loop unrolled and the weights in constant memory",
                  "large": "F = 15 and 31 with the loop kept and the weights in constant or local memory",
                  "unrolled": "F = 15 and 31 with the loop unrolled (blocks 4x4 and 4x8, wg 16x16 and 16x8)",
                  "vectors": "the vector shape (with the tile), the weights in constant memory and the loop kept, "
                             "wg 16x16, blocks {} at F = {}".format(
                                 ", ".join(sorted({r["variant"].split("block=")[1].split()[0] for r in rows
                                                   if "shape=vectors" in r["variant"]},
                                                  key=lambda b: [int(v) for v in b.split("x")])),
                                 ", ".join(sorted({r["filter_width"] for r in rows if "shape=vectors" in r["variant"]},
                                                  key=int)))}
        return table(header, body) + caption(
            rows, "TUNING_PARTS=\"{}\" bench/experiments.sh tuning {}".format(" ".join(parts), tag)) + (
            "\nMedian ms over {} launches at {}x{}, box filters. Searched: {}; a block whose tile is over the "
            "local memory did not run.\n".format(rows[0]["reps"], rows[0]["width"], rows[0]["height"],
                                                  "; ".join(pieces[p] for p in parts)))
    return table(header, body) + caption(
        rows, "bench/experiments.sh tuning " + tag) + (
        "\nMedian ms over {} launches at {}x{}, box filters. Searched: blocks 4x4 to 16x4 and "
        "work-groups 8x8 to 32x8 (the CSV lists every one); F = 3 to 7 with the tile-row loop "
        "unrolled and the weights in constant memory; F = 15 and 31 with the loop kept and the weights "
        "in constant or local memory, then unrolled (blocks 4x4 and 4x8, wg 16x16 and 16x8); the "
        "vector shape (wg 16x16) at F = 3, 7, 15, 31.\n".format(rows[0]["reps"], rows[0]["width"],
                                                               rows[0]["height"]))


def bank(tag):
    rows = load("bank-" + tag)
    body = []
    for w in sorted({r["filter_width"] for r in rows}, key=int):
        for r in rows:
            if r["filter_width"] != w or not r["variant"].startswith("fused"):
                continue
            n = int(re.search(r"bank=(\d+)", r["variant"]).group(1))
            sep = pick(rows, filter_width=w, variant=r["variant"].replace("fused", "separate"))
            body.append(["F = " + w, str(n), r["variant"].split("block=")[1], fmt(sep["median_ms"]),
                         fmt(r["median_ms"]), fmt(float(r["median_ms"]) / n),
                         fmt(float(sep["median_ms"]) / n), "{:.2f}x".format(float(r["speedup_prev"])),
                         fmt(r["gflops"])])
    return table(["filter", "bank", "block", "separate (ms)", "fused (ms)", "fused per filter",
                  "separate per filter", "fused speedup", "fused GFLOP/s"], body) + caption(
        rows, "bench/experiments.sh bank " + tag) + "\n{}x{} image, random filters, median of {} launches.\n".format(
        rows[0]["width"], rows[0]["height"], rows[0]["reps"])


def volume(tag):
    rows = load("volume-" + tag)
    body = []
    for r in rows:
        n = int(re.search(r"bank=(\d+)", r["variant"]).group(1))
        body.append([r["variant"].split()[0], str(n), fmt(r["median_ms"]), fmt(float(r["median_ms"]) / n),
                     fmt(r["gflops"]), fmt(r["pct_limit"]) + " %",
                     "{:.2f}x".format(float(r["speedup_prev"])) if r["speedup_prev"] else "-"])
    depth = re.search(r"depth=(\d+)", rows[0]["variant"]).group(1)
    return table(["kernel", "bank", "ms", "ms per filter", "GFLOP/s", "of FMA peak", "blocked / naive"],
                 body) + caption(rows, "bench/experiments.sh volume " + tag) + (
        "\nA {}^3 uchar volume, 7x7x7 random filters, valid region {}x{}x{}; median of {} launches. "
        "GFLOP/s counts 2 flops per multiply-add.\n".format(
            int(rows[0]["width"]) + 6, rows[0]["width"], rows[0]["height"], depth, rows[0]["reps"]))


def _kernel_label(name):
    """"F15-weights_local-unroll_off" -> "F = 15, weights local, tile-row loop kept"."""
    parts = name.split("-")
    label = parts[0].replace("F", "F = ", 1)
    if len(parts) == 1:
        return label + ", default"
    words = {"weights_local": "weights in local memory", "weights_constant": "weights in constant memory",
             "weights_inline": "weights inline", "unroll_on": "rows unrolled", "unroll_off": "loop kept",
             "copy_rows": "rows copy", "copy_flat": "flat copy"}
    return label + ", " + ", ".join(words.get(p, p.replace("_", " ")) for p in parts[1:])


def _mix_lines(path):
    with open(path) as f:
        return [line.split() for line in f if line.strip() and not line.startswith("#")]


def ptx_mix(tag):
    """Instructions in the PTX of step 6's default kernels and of the alternatives."""
    body = [[_kernel_label(p[0])] + p[1:5] + [p[6] if len(p) > 6 else "-"]
            for p in _mix_lines(os.path.join(RESULTS, "ptx-mix-%s.txt" % tag))]
    return table(["kernel", "fma.rn.f32", "ld.const", "ld.shared.f32", "ld.shared.v4.f32", "registers"], body) + (
        "\n*Counted in the PTX the driver returns as the program binary (`build/bin/kernel-info --step 6 "
        "--filter random:F --dir DIR`, then `grep -c`; `bench/device-run.sh` part `ptxmix`), saved in "
        "`docs/results/ptx-mix-{}.txt`; registers from the driver's build log. A static count: where the "
        "loop over tile rows stays a loop, these are the instructions of its body, one tile row.*\n".format(tag))


def sass_mix(tag):
    """Instructions in the machine code ptxas makes of the same PTX."""
    path = os.path.join(RESULTS, "sass-mix-%s.txt" % tag)
    with open(path) as f:
        arch = re.search(r"-arch=(sm_\d+)", f.read())
    body = [[_kernel_label(p[0])] + p[1:7] for p in _mix_lines(path)]
    return table(["kernel", "FFMA", "FFMA with a constant-bank operand", "FFMA with an immediate weight", "LDS",
                  "LDC", "instructions"], body) + (
        "\n*The same PTX through `ptxas -arch={}` and `cuobjdump -sass` on the GPU machine "
        "(`bench/device-run.sh` part `ptxmix`), saved in `docs/results/sass-mix-{}.txt`; a static count "
        "of the whole kernel.*\n".format(arch.group(1) if arch else "sm_90", tag))


def inline(tag, base=None):
    """Where the weights are read from, and how the tile is copied, per width; the build beside it.
    base "winners": the options the run left to auto (the tile, the block,
    the tile-row loop) are each width's stored winner's; a flat copy
    brought the tile where the winner has none, and the columns say which
    ran with the tile."""
    rows = load("inline-" + tag)
    winners = stored_winners(tag) if base == "winners" else None
    builds = {}
    path = os.path.join(RESULTS, "buildtime-%s.txt" % tag)
    if os.path.exists(path):
        width = None
        for line in open(path):
            m = re.match(r"== F = (\d+), (.*), random filter", line)
            if m:
                width = m.group(1) if "unroll" not in m.group(2) else None
            m = re.search(r"built for this filter's weights in ([\d.]+) ms", line)
            if m and width:
                builds[width] = m.group(1)
    places = [(weights, copy) for weights in ("constant", "local", "inline") for copy in ("rows", "flat")]
    if winners:  # the tile-less columns first
        places = [(weights, copy) for copy in ("rows", "flat") for weights in ("constant", "local", "inline")]
    labels = ["{}, {} copy".format(weights, copy) for weights, copy in places]
    body = []
    for w in WIDTHS:
        line = ["F = " + w]
        if winners:
            line.append("{}, {}".format(winners[w]["block"], "unrolled" if winners[w]["unroll"] == "on" else "loop kept"))
        for i, (weights, copy) in enumerate(places):
            r = pick(rows, filter_width=w, wg="32x4", variant="default weights={} copy={}".format(weights, copy))
            line.append("{} ({} %)".format(fmt(r["median_ms"]), fmt(r["pct_limit"])) if r else "-")
            if winners and r:
                c = _ran(r["variant"], winners[w], int(w), r["wg"])
                labels[i] = "{}, {}".format(weights, "tile, {} copy".format(copy) if c["tile"] == "on" else "no tile")
                if c["block"] != winners[w]["block"]:
                    line[-1] += ", block {}".format(c["block"])
        line.append(fmt(builds[w], 0) if w in builds else "-")
        body.append(line)
    header = ["filter"] + (["the winner's block, loop"] if winners else []) + labels + ["inline: build ms"]
    text = table(header, body) + caption(rows, "bench/experiments.sh inline " + tag)
    if winners:
        tiles = {winners[w]["tile"] for w in WIDTHS}
        return text + (
            "\nMedian ms (and % of the binding limit) over {} launches at {}x{}, random filters, work-group "
            "32x4; the weights and the copy as named, the rest as {}: {}, so a flat copy brought the tile; "
            "the winner's block (halved where the tile would not fit, as the cell says) and loop. Build: one "
            "random filter's program with the weights inline, the rest as the winner, the driver's disk cache "
            "off (`buildtime-{}.txt`).\n".format(
                rows[0]["reps"], rows[0]["width"], rows[0]["height"], _winners_note(tag),
                "no tile" if tiles == {"off"} else "the tile as it has it", tag))
    return text + (
        "\nMedian ms (and % of the binding limit) over {} launches at {}x{}, random filters, work-group 32x4, "
        "each with the default block (4x8) and the default tile-row loop for its weights (unrolled up to "
        "F = 7, and up to F = 15 with the weights inline). Build: the program built for one random "
        "filter with the weights inline, driver's disk cache off (`bench/device-run.sh` part `buildtime`, "
        "`docs/results/buildtime-{}.txt`).\n".format(rows[0]["reps"], rows[0]["width"], rows[0]["height"], tag))


def direct(tag, base=None):
    """With the tile against without it (--tile on, off), per width: each at its fastest block.
    base "winners": the options the run left to auto (the weights; the
    tile-row loop where not named) are each width's stored winner's."""
    rows = load("direct-" + tag)
    winners = stored_winners(tag) if base == "winners" else None

    def best(w, tile, wg=None):
        cands = [r for r in rows if r["filter_width"] == w and ("tile=" + tile) in r["variant"]
                 and (wg is None or r["wg"] == wg)]
        return min(cands, key=lambda r: float(r["median_ms"])) if cands else None

    def shape(r):
        return " ".join(p for p in r["variant"].split()[1:] if not p.startswith("tile="))

    body = []
    for w in WIDTHS:
        on, off, any_off = best(w, "on", "32x4"), best(w, "off", "32x4"), best(w, "off")
        if not (on and off):
            continue
        body.append(["F = " + w, "{} ({} % {})".format(fmt(on["median_ms"]), fmt(on["pct_limit"]), on["limit"]),
                     shape(on), "{} ({} % {})".format(fmt(off["median_ms"]), fmt(off["pct_limit"]), off["limit"]),
                     shape(off), "{:.2f}x".format(float(on["median_ms"]) / float(off["median_ms"])),
                     "{} ms: {}, wg {}".format(fmt(any_off["median_ms"]), shape(any_off), any_off["wg"])])
    text = table(["filter", "tile, ms (% of limit)", "its block", "no tile, ms (% of limit)", "its block",
                  "tile / no tile", "no tile, fastest of all work-groups"], body) + caption(
        rows, "bench/experiments.sh direct " + tag)
    if winners:
        widths = [w for w in WIDTHS if any(r["filter_width"] == w for r in rows)]
        loose = [w for w in widths if not any("unroll=" in r["variant"] for r in rows if r["filter_width"] == w)]
        return text + (
            "\nMedian ms over {} launches at {}x{}, random filters, work-group 32x4 (the default) except in the "
            "last column; each the fastest of blocks 4x4, 4x8, 8x4 and 4x16 (and, from F = 7, the tile-row loop "
            "unrolled or not); the weights{} as {} has them: {}{}.\n".format(
                rows[0]["reps"], rows[0]["width"], rows[0]["height"],
                " and, where not named, the tile-row loop" if loose else "", _winners_note(tag),
                _by_value(winners, widths, "weights", WEIGHT_WORDS),
                "; the loop {}".format(_by_value(winners, loose, "unroll", {"on": "unrolled", "off": "kept"}))
                if loose else ""))
    return text + (
        "\nMedian ms over {} launches at {}x{}, random filters, work-group 32x4 (the default) except in the last "
        "column; each the fastest of blocks 4x4, 4x8, 8x4 and 4x16 (and, from F = 7, the tile-row loop "
        "unrolled or not); the weights where the defaults put them (compiled in at F = 7 and 15; at F = 31 in "
        "local memory with the tile, constant memory without; else constant memory).\n".format(rows[0]["reps"], rows[0]["width"],
                                                                     rows[0]["height"]))


def kernel_info(tag):
    """Registers and spills from the compiler's log, and what they and the tile leave room for on one SM."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))  # bench/occupancy.py, the measuring tool
    import occupancy
    path = os.path.join(RESULTS, "kernel-info-%s.txt" % tag)
    with open(path) as f:
        text = f.read()
    wg_x, wg_y = 32, 4  # the GPU's default work-group
    body = []
    for block in text.split("\n== ")[1:]:
        head = block.splitlines()[0]
        opts = re.search(r"\[(.*)\]", head).group(1)
        width = int(re.search(r"FILTER_WIDTH=(\d+)", opts).group(1))
        bx, by = int(re.search(r"BLOCK_X=(\d+)", opts).group(1)), int(re.search(r"BLOCK_Y=(\d+)", opts).group(1))
        # The kernel that runs: convolve_direct without the tile, else convolve.
        direct = "DIRECT_READS" in opts
        name = "convolve_direct" if direct else "convolve"
        own = re.search(r"Compiling entry function '%s'.*?(?=Compiling entry function|\Z)" % name, block, re.S)
        own = own.group(0) if own else block
        regs = re.search(r"Used (\d+) registers", own)
        spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", own)
        tile = 0 if direct else 4 * (-(-(wg_x * bx + width - 1) // 4) * 4) * (wg_y * by + width - 1)
        if "WEIGHTS_LOCAL" in opts:
            tile += 4 * width * (-(-width // 4) * 4)
        line = ["F = {}".format(width), "{}x{}".format(bx, by), "yes" if "UNROLL_ROWS" in opts else "no",
                "local" if "WEIGHTS_LOCAL" in opts else "inline" if "WEIGHTS_INLINE" in opts else "constant",
                "none (`--tile off`)" if direct else "flat" if "FLAT_COPY" in opts else "rows",
                regs.group(1) if regs else "-",
                "{} / {}".format(spill.group(1), spill.group(2)) if spill else "-",
                "{:.1f}".format(tile / 1024) if tile else "-"]
        if regs:
            by_regs, _ = occupancy.resident(int(regs.group(1)), wg_x * wg_y, 65536, 64, 32)
            # 1 KiB of each group's shared memory is the driver's; without the tile, no limit.
            by_smem = SMEM_PER_SM // (tile + 1024) if tile else None
            groups = min(by_regs, by_smem) if by_smem else by_regs
            line += [str(by_regs), str(by_smem) if by_smem else "-",
                     "{:.0f} %".format(100.0 * groups * wg_x * wg_y / 2048)]
        else:
            line += ["-", "-", "-"]
        body.append(line)
    return table(["filter", "block", "rows unrolled", "weights", "tile copy", "registers",
                  "spill stores / loads (bytes)", "tile KiB", "groups/SM by registers",
                  "groups/SM by local memory", "occupancy"], body) + (
        "\n*From the compiler's log (`-cl-nv-verbose`); `build/bin/kernel-info --step 6 --filter box:F`, "
        "saved in `docs/results/kernel-info-{}.txt`. Groups per SM for the default work-group (32x4): by "
        "registers as `bench/occupancy.py --wg 128` counts them (65536 registers, 64 warps), by local "
        "memory as 228 KiB over the tile plus 1 KiB a group (no limit without a tile); occupancy: the "
        "smaller of the two, in work-items over the SM's 2048.*\n".format(tag))


GENERATORS = {"step6-blocks": blocks, "step6-tuning": tuning, "step6-unroll": unroll, "step6-perf": perf,
              "step6-bank": bank, "step6-volume": volume, "step6-kernel-info": kernel_info, "step6-direct": direct,
              "step6-ptx-mix": ptx_mix, "step6-vs-opencv": vs_opencv,
              "step6-sass-mix": sass_mix, "step6-inline": inline}


def figures(plt):
    tags = [t for t in ("pocl", "h100") if os.path.exists(os.path.join(RESULTS, "volume-%s.csv" % t))]
    if not tags:
        return
    fig, axes = plt.subplots(1, len(tags), figsize=(5.2 * len(tags), 3.6), squeeze=False)
    for ax, tag in zip(axes[0], tags):
        rows = load("volume-" + tag)
        for kernel, style in (("naive", "o-"), ("blocked", "s-")):
            pts = [(int(re.search(r"bank=(\d+)", r["variant"]).group(1)), float(r["pct_limit"]))
                   for r in rows if r["variant"].startswith(kernel)]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=kernel)
        ax.set_xscale("log", base=2)
        ax.set_xticks([1, 2, 4, 8, 16])
        ax.set_xticklabels(["1", "2", "4", "8", "16"])
        ax.set_xlabel("filters in one pass (bank)")
        ax.set_ylabel("% of measured FMA peak")
        ax.set_title(rows[0]["device"], fontsize=9)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(FIGURES, "step6-volume.svg"), metadata={"Date": None})
    plt.close(fig)
