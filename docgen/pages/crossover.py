"""The crossover lesson (docs/step8-separable.md, docs/step9-fft.md,
docs/results.md): time against filter width for the tuned direct sum (step 7),
the separable passes (step 8, rank 1 and full rank: its passes and its fused
kernel in runs made while step 8 had those two variants, its passes and a
plain run's pick, the tuned winner, since), the
FFT (step 9) and the FFT in tiles (step 10), beside the best peer measured on the device.

Inputs (docs/results/):
  crossover-h100.csv        bench/crossover.sh h100 8192x8192 --platform NVIDIA
                            (step 7: the stored winners of tuned-step7-h100.txt
                            where there is one, its documented defaults elsewhere)
  torch-crossover-h100.csv  python3 bench/torch_conv2d.py --size 8192x8192 --filters 3,5,7,9,11,15,21,31,45,63
  crossover-h200.csv        bench/crossover.sh h200 8192x8192 --platform NVIDIA
  crossover-pocl.csv        CROSSOVER_WIDTHS="3 7 15 31 63" CROSSOVER_REPS=3 CROSSOVER_ROUNDS=3 bench/crossover.sh pocl 2048x2048
  torch-crossover-h200.csv  python3 bench/torch_conv2d.py --size 8192x8192 --filters 3,5,7,9,11,15,21,31,45,63
  opencv-crossover-pocl.csv build/bin/opencv-filter2d --images 2048x2048 --filters random:3,...,box:63 --reps 3
  separable-h200.csv        bench/experiments.sh separable h200 --platform NVIDIA
  separable-blocks-h200.csv bench/experiments.sh separable-blocks h200 --platform NVIDIA
The step-8 CSVs made while step 8 had variants name them first in the variant
column ("passes", "fused fused-kernel=box"); later runs name the method
("default method=passes", "default method=box"; "default": --method auto).
_kernel() reads both.
"""
import os

from tables import load, table, fmt, caption, stored_winners, FIGURES, RESULTS

DIRECT = "direct sum, tuned (step 7)"
LINES = [  # (label, step(s) (the first present in the CSV), variants (likewise), filter kind)
    # The tuned direct sum: step 7 now; step 6 in runs made before step 6
    # became register blocking alone (the same kernel, then step 6's).
    (DIRECT, ("step7-tuned", "step6-multioutput"), ("default",), "random"),
    # Step 8: "passes" and "fused" were its variants; bench/crossover.sh now
    # runs --method passes and auto (a plain run's: the tuned winner, else
    # the defaults). A CSV holds one kind or the other; empty lines are left out.
    ("step 8 passes, rank 1 (box)", "step8-separable", ("passes", "default method=passes"), "box"),
    ("step 8 fused, rank 1 (box)", "step8-separable", ("fused",), "box"),
    ("step 8 tuned, rank 1 (box)", "step8-separable", ("default",), "box"),
    ("step 8 passes, full rank", "step8-separable", ("passes", "default method=passes"), "random"),
    ("step 8 fused, full rank", "step8-separable", ("fused",), "random"),
    ("step 8 tuned, full rank", "step8-separable", ("default",), "random"),
    ("step 9, FFT, our product", "step9-fft", ("default product=separate", "default"), "random"),
    ("step 9, FFT, product in VkFFT", "step9-fft", ("default product=fused",), "random"),
    ("step 10, FFT in tiles", "step10-fft-tiled", ("default",), "random"),
]
PEERS = {"h100": [("torch-crossover-h100", "torch.conv2d", "prepadded", "random", "torch conv2d (fp32, padded input)")],
         "h200": [("torch-crossover-h200", "torch.conv2d", "fp32", "random", "torch conv2d (fp32)")],
         "pocl": [("opencv-crossover-pocl", "opencv.filter2D", None, "random", "OpenCV filter2D"),
                  ("opencv-crossover-pocl", "opencv.sepFilter2D", None, "box", "OpenCV sepFilter2D (box)")]}
NAMES = {"h100": "NVIDIA H100 80GB HBM3, 8192x8192", "h200": "NVIDIA H200, 8192x8192", "pocl": "PoCL, 2-core CPU, 2048x2048"}


def _has(name):
    return os.path.exists(os.path.join(RESULTS, name + ".csv"))


def _series(tag):
    rows = load("crossover-" + tag)
    out = {}
    for label, steps, variants, kind in LINES:
        if isinstance(steps, str):
            steps = (steps,)
        step = next((st for st in steps if any(r["step"] == st for r in rows)), steps[0])
        present = {r["variant"] for r in rows if r["step"] == step}
        variant = next((v for v in variants if v in present), None)
        pts = {}
        for r in rows:
            if r["step"] == step and r["variant"] == variant and r["filter"].startswith(kind + ":"):
                pts[int(r["filter_width"])] = float(r["median_ms"])
        if pts:
            out[label] = pts
    for name, step, variant, kind, label in PEERS.get(tag, []):
        if not _has(name):
            continue
        pts = {}
        for r in load(name):
            if r["step"] == step and (variant is None or r["variant"] == variant) \
                    and r["filter"].startswith(kind + ":"):
                pts.setdefault(int(r["filter_width"]), float(r["median_ms"]))
        if pts:
            out[label] = pts
    return rows, out


def _direct_note(tag, direct_step, widths):
    if direct_step == "step6-multioutput":
        return " The direct sum was measured as step 6 (its tuned kernel, now step 7's) with step 6's defaults of the time."
    winners = stored_winners(tag)
    if winners is None:
        return ""
    tuned = {int(w) for w in winners}
    ours = [w for w in widths if w in tuned]
    rest = [w for w in widths if w not in tuned]
    return " Step 7 ran its stored tuned winner at F = {} (`docs/results/tuned-step7-{}.txt`){}.".format(
        ", ".join(map(str, ours)), tag,
        " and its documented defaults at F = " + ", ".join(map(str, rest)) if rest else "")


def crossover(tag):
    rows, series = _series(tag)
    widths = sorted({w for pts in series.values() for w in pts})
    body = [[label] + [fmt(pts.get(w, "")) for w in widths] for label, pts in series.items()]
    r0 = rows[0]
    direct = series[DIRECT]
    direct_step = next(r["step"] for r in rows if r["step"] in LINES[0][1])
    def first_win(prefix):  # the narrowest width where a line of `prefix` beats the direct sum
        lines = [pts for label, pts in series.items() if label.startswith(prefix)]
        over = [w for w in widths if w in direct and any(w in f and f[w] < direct[w] for f in lines)]
        if not lines:
            return ""
        return " {} first beats the tuned direct sum at F = {}.".format(
            prefix.capitalize(), over[0] if over else "(never, in this range)")
    text = table(["median ms, F ="] + [str(w) for w in widths], body)
    direct_widths = sorted(w for w in widths if w in direct)
    missing = any(w not in pts for pts in series.values() for w in widths)
    text += ("\n{} ({}, driver {}, {}), {}x{} image, zero border, median of {} launches{}."
             "{}{}{}\n").format(
        r0["device"], tag, r0["driver"], r0["date"], r0["width"], r0["height"], r0["reps"],
        "; '-': not measured" if missing else "", first_win("step 9"), first_win("step 10"),
        _direct_note(tag, direct_step, direct_widths))
    return text


def _setting(variant, name):
    for part in variant.split()[1:]:
        key, _, value = part.partition("=")
        if key == name:
            return value
    return "auto"


# Step 8's old fused kernels (variant fused, --fused-kernel) by today's method names.
_OLD_FUSED = {"tile": "fused", "direct": "fused-direct", "strip": "strip", "box": "box", "auto": "fused-auto"}


def _kernel(variant):
    """What a step-8 row ran, in today's --method names: passes, fused,
    fused-direct, strip, box, or auto (a plain run's pick); "fused-auto" for
    the old variant fused left to pick its kernel (runs made while step 8
    had variants)."""
    first = variant.split()[0]
    if first == "default":
        return _setting(variant, "method")
    if first == "fused":
        return _OLD_FUSED[_setting(variant, "fused-kernel")]
    return first  # passes, auto


def separable_unroll(tag):
    """Step 8's best time per filter and variant, the tile-row loop unrolled or not."""
    rows = load("separable-" + tag)
    body = []
    for f in ("box:3", "box:15", "box:31"):
        for v in ("passes", "fused"):
            best = {}
            for r in rows:
                if r["filter"] == f and _kernel(r["variant"]) == v:
                    u = _setting(r["variant"], "unroll")
                    ms = float(r["median_ms"])
                    if u not in best or ms < best[u][0]:
                        best[u] = (ms, _setting(r["variant"], "block"), r["wg"])
            line = [f, v]
            for u in ("on", "off"):
                line.append("{} ms ({}, {})".format(fmt(best[u][0]), best[u][1], best[u][2]) if u in best else "-")
            body.append(line)
    r0 = rows[0]
    return table(["filter", "variant", "unrolled: best (block, work-group)", "not unrolled"], body) + (
        "\n{} (driver {}, {}), {}x{}, median of {} launches; `bench/experiments.sh separable {}`; "
        "--block sets both passes' blocks here; '-': no block fits local memory.\n".format(r0["device"], r0["driver"], r0["date"], r0["width"],
                                                   r0["height"], r0["reps"], tag))


def separable_blocks(tag, filt="box:31", wg="16x16"):
    """The row pass's block against the column pass's, one filter and
    work-group; runs made since step 8 has one block for both passes (no
    column-block in the variant): the blocks in one line."""
    rows = [r for r in load("separable-blocks-" + tag) if r["filter"] == filt and r["wg"] == wg]
    if not any("column-block=" in r["variant"] for r in rows):
        blocks = sorted({_setting(r["variant"], "block") for r in rows},
                        key=lambda b: tuple(int(x) for x in b.split("x")))
        line = ["both passes"]
        for b in blocks:
            hit = [r for r in rows if _setting(r["variant"], "block") == b]
            line.append(fmt(hit[0]["median_ms"]) if hit else "-")
        return table(["{} ms, work-group {}".format(filt, wg)] + ["block " + b for b in blocks], [line]) + \
            caption(rows, "bench/experiments.sh separable-blocks " + tag) + \
            "\nThe passes with the tile (`--rows tile --columns tile`); '-': a pass's tile does not fit local memory.\n"
    rb = sorted({_setting(r["variant"], "block") for r in rows})
    cb = sorted({_setting(r["variant"], "column-block") for r in rows})
    body = []
    for b in rb:
        line = ["row pass " + b]
        for c in cb:
            hit = [r for r in rows if _setting(r["variant"], "block") == b and _setting(r["variant"], "column-block") == c]
            line.append(fmt(hit[0]["median_ms"]) if hit else "-")
        body.append(line)
    r0 = rows[0]
    return table(["{} ms, work-group {}".format(filt, wg)] + ["column pass " + c for c in cb], body) + (
        "\n{} (driver {}, {}), {}x{}, median of {} launches; `bench/experiments.sh separable-blocks {}`; "
        "'-': the column pass's tile does not fit local memory.\n".format(
            r0["device"], r0["driver"], r0["date"], r0["width"], r0["height"], r0["reps"], tag))


SHORT = {DIRECT: "step 7", "step 8 passes, rank 1 (box)": "step 8 passes", "step 8 fused, rank 1 (box)": "step 8 fused",
         "step 8 passes, full rank": "step 8 passes", "step 8 fused, full rank": "step 8 fused",
         "step 8 tuned, rank 1 (box)": "step 8 tuned", "step 8 tuned, full rank": "step 8 tuned",
         "step 9, FFT, our product": "step 9 (our product)", "step 9, FFT, product in VkFFT": "step 9",
         "step 10, FFT in tiles": "step 10"}


def which_step(tag):
    """Per filter width, the fastest of our steps for a full-rank (random)
    filter and for a rank-1 (box) one, from the crossover run. Step 7's and
    steps 9 and 10's times do not depend on the weights: their random rows
    stand for a box filter too."""
    rows, series = _series(tag)
    widths = sorted({w for pts in series.values() for w in pts})
    ours = [(label, pts) for label, pts in series.items() if label in SHORT]

    def best(w, kinds):
        cands = [(pts[w], label) for label, pts in ours if w in pts and any(k in label for k in kinds)]
        if not cands:
            return "-"
        ms, label = min(cands)
        return "{}, {} ms".format(SHORT[label], fmt(ms))
    body = [["F = {}".format(w), best(w, ("direct", "full rank", "step 9", "step 10")),
             best(w, ("direct", "rank 1", "step 9", "step 10"))] for w in widths]
    r0 = rows[0]
    return table(["the fastest step", "full rank (random filter)", "rank 1 (box filter)"], body) + (
        "\n{} ({}, driver {}, {}), {}x{}: the crossover run above. Steps 7, 9 and 10 do the same work for "
        "any weights; their random-filter times stand in the box column.\n".format(
            r0["device"], tag, r0["driver"], r0["date"], r0["width"], r0["height"]))


def separable_fused_widths(tag):
    """Step 8's fused kernel without the tile against F: the settings of the
    time (the first sweep), then every unroll and block of the grid."""
    rows = load("separable-fused-widths-" + tag)
    grid = [(u, b) for u in ("on", "off") for b in ("4x4", "4x16", "4x32")]
    widths = sorted({int(r["filter_width"]) for r in rows})
    body = []
    for f in widths:
        then = [r for r in rows if int(r["filter_width"]) == f and r["variant"] == "fused"]
        line = ["box:{}".format(f), fmt(then[0]["median_ms"]) if then else "-"]
        for u, b in grid:
            hit = [r for r in rows if int(r["filter_width"]) == f and _setting(r["variant"], "unroll") == u
                   and _setting(r["variant"], "block") == b]
            line.append(fmt(hit[0]["median_ms"]) if hit else "-")
        body.append(line)
    return table(["median ms", "settings of the time"] + ["unroll {}, {}".format(u, b) for u, b in grid], body) + \
        caption(rows, "build/bin/sweep --steps 8` with the options of then (`--variants fused`), twice: the commands table of `results.md") + (
        "\n8192x8192, work-group 32x4, `--fused-kernel direct`; '-': not measured.\n")


def separable_strip(tag):
    """Step 8's strip kernel at its blocks, unrolled or not, beside the
    passes and the fused kernel without a tile, per filter."""
    rows = load("separable-strip-" + tag)
    filters = []
    for r in rows:
        if r["filter"] not in filters:
            filters.append(r["filter"])
    cols = [("passes", lambda v: _kernel(v) == "passes"), ("fused, direct", lambda v: _kernel(v) == "fused-direct")]
    for b in ("4x4", "4x8"):
        for u in ("on", "off"):
            cols.append(("strip {}, unroll {}".format(b, u),
                         lambda v, b=b, u=u: _kernel(v) == "strip" and _setting(v, "block") == b
                         and _setting(v, "unroll") == u))
    body = []
    for f in filters:
        line = [f]
        for _, match in cols:
            hit = [r for r in rows if r["filter"] == f and match(r["variant"])]
            line.append(fmt(hit[0]["median_ms"]) if hit else "-")
        body.append(line)
    old = any(r["variant"].split()[0] == "fused" for r in rows)  # made while step 8 had variants
    return table(["median ms"] + [c for c, _ in cols], body) + \
        caption(rows, "bench/experiments.sh separable-strip " + tag + " --platform NVIDIA") + (
        "\n{}x{}, work-group 32x4; `fused, direct`: `{}` at its default block.\n".format(
            rows[0]["width"], rows[0]["height"], "--fused-kernel direct" if old else "--method fused-direct"))


def separable_box(tag):
    """Step 8's box kernel at every work-group swept beside the passes and
    the step's default (auto), per box width: the kernel at 256x1, at its
    fastest work-group, and the default with its share of the copy limit
    (one read and one write of the image)."""
    rows = load("separable-box-" + tag)
    widths = []
    for r in rows:
        if r["filter"] not in widths:
            widths.append(r["filter"])
    # The copy bandwidth the sweep measured: a copy-limited row's GB/s over its share.
    copy = [float(r["gbps"]) * 100 / float(r["pct_limit"]) for r in rows if r["limit"] == "copy"][0]
    body = []
    for f in widths:
        mine = [r for r in rows if r["filter"] == f]
        passes = [r for r in mine if _kernel(r["variant"]) == "passes"]
        auto = [r for r in mine if _kernel(r["variant"]) in ("fused-auto", "auto")]
        box = [r for r in mine if _kernel(r["variant"]) == "box"]
        b256 = [r for r in box if r["wg"] == "256x1"]
        best = min(box, key=lambda r: float(r["median_ms"])) if box else None
        line = [f, fmt(passes[0]["median_ms"]) if passes else "-", fmt(b256[0]["median_ms"]) if b256 else "-"]
        line += [fmt(best["median_ms"]) + " (" + best["wg"] + ")" if best else "-"]
        line += [fmt(auto[0]["median_ms"]) + " (" + auto[0]["wg"] + ")" if auto else "-"]
        line.append(fmt(100 * float(auto[0]["gbps"]) / copy) if auto else "-")
        body.append(line)
    wgs = sorted({r["wg"] for r in rows if _kernel(r["variant"]) == "box"}, key=lambda w: int(w.split("x")[0]))
    # What *default* ran: the old variant fused's own pick, or a plain run's (--method auto).
    default = ("`--variant auto` (the fused kernel without a tile below F = 9, the box kernel from 9)"
               if any(_kernel(r["variant"]) == "fused-auto" for r in rows) else
               "`--method auto` (the tuned winner where the store held one, else the documented defaults)")
    passes_wg = sorted({r["wg"] for r in rows if _kernel(r["variant"]) == "passes"})
    return table(["median ms", "passes", "box, 256x1", "box, fastest", "default", "default, % of copy"], body) + \
        caption(rows, "bench/experiments.sh separable-box " + tag + " --platform NVIDIA") + (
        "\n{}x{}; the passes at work-group {}; *box, fastest*: the box kernel at the fastest of {} "
        "work-groups ({} to {}); *default*: {}, with its work-group.\n".format(
            rows[0]["width"], rows[0]["height"], " and ".join(passes_wg) or "-", len(wgs),
            wgs[0] if wgs else "-", wgs[-1] if wgs else "-", default))


GENERATORS = {"crossover": crossover, "which-step": which_step, "separable-fused-widths": separable_fused_widths,
              "separable-unroll": separable_unroll, "separable-blocks": separable_blocks,
              "separable-strip": separable_strip, "separable-box": separable_box}


def figures(plt):
    tags = [t for t in ("pocl", "h100") if _has("crossover-" + t)]
    if not tags:
        return
    fig, axes = plt.subplots(1, len(tags), figsize=(5.8 * len(tags), 4.6), squeeze=False)
    markers = "osD^vP*"
    for ax, tag in zip(axes[0], tags):
        rows, series = _series(tag)
        for i, (label, pts) in enumerate(series.items()):
            ws = sorted(pts)
            kw = dict(marker=markers[i % len(markers)], markersize=4, label=label)
            if label.startswith(("torch", "OpenCV filter2D")):
                kw.update(color="black", linestyle="--")
            elif label.startswith("OpenCV"):
                kw.update(color="0.5", linestyle=":")
            ax.plot(ws, [pts[w] for w in ws], **kw)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ws = sorted({w for pts in series.values() for w in pts})
        ax.set_xticks(ws)
        ax.set_xticklabels([str(w) for w in ws])
        ax.set_xlabel("filter width F")
        ax.set_ylabel("median ms")
        ax.set_title("{} (driver {}, {})".format(NAMES[tag], rows[0]["driver"], rows[0]["date"]), fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(FIGURES, "crossover.svg"), metadata={"Date": None})
    plt.close(fig)
