# Step 6's tables and figure (docs/step6-multioutput.md), from the CSVs of
# bench/experiments.sh blocks|tuning|unroll|perf|bank|volume TAG,
# bench/torch_conv2d.py (torch-TAG), bench/cupy_correlate.py (cupy-TAG) and
# build/bin/kernel-info (kernel-info-TAG.txt, ptx-mix-TAG.txt, sass-mix-TAG.txt),
# bench/experiments.sh inline and bench/device-run.sh part buildtime.
import os
import sys
import re

from tables import load, table, fmt, caption, pick, FIGURES, RESULTS, ROOT

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


def unroll(tag):
    rows = load("unroll-" + tag)
    body = []
    for w in sorted({r["filter_width"] for r in rows}, key=int):
        for wg in sorted({r["wg"] for r in rows}):
            on = pick(rows, filter_width=w, wg=wg, variant="default unroll=on")
            off = pick(rows, filter_width=w, wg=wg, variant="default unroll=off")
            if on and off:
                body.append(["F = " + w, wg, fmt(off["median_ms"]), fmt(on["median_ms"]),
                             "{:.2f}x".format(float(off["median_ms"]) / float(on["median_ms"]))])
    return table(["filter", "work-group", "rows loop (ms)", "rows unrolled (ms)", "gain"], body) + caption(
        rows, "bench/experiments.sh unroll " + tag)


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
    return table(["filter", "fastest of the search", "4x8, wg 32x4 (the search's default)", "fastest with wg 16x16",
                  "weights in constant memory (loop kept)", "rows unrolled", "vector shape"], body) + caption(
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


def inline(tag):
    """Where the weights are read from, and how the tile is copied, per width; the build beside it."""
    rows = load("inline-" + tag)
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
    body = []
    for w in WIDTHS:
        line = ["F = " + w]
        for weights in ("constant", "local", "inline"):
            for copy in ("rows", "flat"):
                r = pick(rows, filter_width=w, wg="32x4", variant="default weights={} copy={}".format(weights, copy))
                line.append("{} ({} %)".format(fmt(r["median_ms"]), fmt(r["pct_limit"])) if r else "-")
        line.append(fmt(builds[w], 0) if w in builds else "-")
        body.append(line)
    return table(["filter", "constant, rows copy", "constant, flat copy", "local, rows copy", "local, flat copy",
                  "inline, rows copy", "inline, flat copy", "inline: build ms"], body) + caption(
        rows, "bench/experiments.sh inline " + tag) + (
        "\nMedian ms (and % of the binding limit) over {} launches at {}x{}, random filters, work-group 32x4, "
        "each with the default block (4x8) and the default tile-row loop for its weights (unrolled up to "
        "F = 7, and up to F = 15 with the weights inline). Build: the program built for one random "
        "filter with the weights inline, driver's disk cache off (`bench/device-run.sh` part `buildtime`, "
        "`docs/results/buildtime-{}.txt`).\n".format(rows[0]["reps"], rows[0]["width"], rows[0]["height"], tag))


def direct(tag):
    """With the tile against without it (--tile on, off), per width: each at its fastest block."""
    rows = load("direct-" + tag)

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
    return table(["filter", "tile, ms (% of limit)", "its block", "no tile, ms (% of limit)", "its block",
                  "tile / no tile", "no tile, fastest of all work-groups"], body) + caption(
        rows, "bench/experiments.sh direct " + tag) + (
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
