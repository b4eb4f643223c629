"""Tables and figures of docs/results.md: every step on PoCL and on the H200
at F = 3, 5, 7, 15, 31, beside the serial loop and the libraries a user would
otherwise call on the same device (cv::filter2D, cv::sepFilter2D and
scipy.ndimage.correlate on the CPU; torch conv2d and
cupyx.scipy.ndimage.correlate on the GPU), and the source documents'
headline numbers beside ours.

Inputs (docs/results/):
  perf-pocl.csv   bench/results.sh pocl: serial, steps, OpenCV and SciPy in one run
  perf-h200.csv   bench/experiments.sh perf h200 --platform NVIDIA (bench/device-run.sh)
  torch-h200.csv  python3 bench/torch_conv2d.py --size 8192x8192 --filters 3,5,7,15,31
  cupy-h200.csv   python3 bench/cupy_correlate.py --size 8192x8192 --filters 3,5,7,15,31
  (the three GPU files from one bench/device-run.sh call, PARTS="perf torch cupy ...")
  perf-h100.csv   the H100 run of the same command, kept for the seeds table
  steps1to4-*, tour-*, vector-*, histogram-*: the seeds table

GFLOP/s, GB/s and the shares of the limits are recomputed here from each
row's median time with the formulas of common/machinery/report.cpp (2 F^2 flops per
output; one read of the padded input and one write of the output), so that
the peers' rows count the same work as ours. The device's measured copy
bandwidth and FMA rate are recovered from the steps' rows, whose pct_limit
is the share of the binding one (common/machinery/roofline.cpp). Where a row records
that share, the tables show the recorded figure rather than the recomputed
one, so that they print what the pages' value markers print for the same cell.
"""
import os
import statistics

from tables import load, table, fmt, pick, FIGURES, RESULTS

WIDTHS = [3, 5, 7, 15, 31]
STEPS = ["step1-naive", "step2-constant", "step3-local", "step4-unroll", "step5-vector",
         "step6-multioutput"]
SOURCES = {
    "pocl": "bench/results.sh pocl",
    "h100": "bench/experiments.sh perf h100 --platform NVIDIA",
    "h200": "bench/experiments.sh perf h200 --platform NVIDIA",
}
GPU = "h200"  # the GPU run the page shows
SERIAL = " --serial --serial-reps 1"  # what perf needs for the serial baseline
PEER_FILES = {
    "h100": [("torch-h100", "python3 bench/torch_conv2d.py --size 8192x8192 --filters 3,5,7,15,31")],
    "h200": [("torch-h200", "python3 bench/torch_conv2d.py --size 8192x8192 --filters 3,5,7,15,31"),
             ("cupy-h200", "python3 bench/cupy_correlate.py --size 8192x8192 --filters 3,5,7,15,31")],
}


def _exists(name):
    return os.path.exists(os.path.join(RESULTS, name + ".csv"))


# ---- the numbers ------------------------------------------------------------

def work(r):
    """(flops, bytes) of one row's problem, as common/machinery/report.cpp counts them."""
    w, h, f = int(r["width"]), int(r["height"]), int(r["filter_width"])
    return 2.0 * f * f * w * h, 4.0 * ((w + f - 1) * (h + f - 1) + w * h)


def limits(rows):
    """The measured (copy GB/s, FMA GFLOP/s) behind the steps' pct_limit."""
    copy, fma = [], []
    for r in rows:
        if r["step"] not in STEPS or not r["pct_limit"]:
            continue
        flops, nbytes = work(r)
        ms, pct = float(r["median_ms"]), float(r["pct_limit"])
        if r["limit"] == "copy":
            copy.append(nbytes / (ms * 1e6) * 100 / pct)
        elif r["limit"] == "fma":
            fma.append(flops / (ms * 1e6) * 100 / pct)
    return (statistics.median(copy) if copy else None, statistics.median(fma) if fma else None)


def metrics(r, lim):
    """GFLOP/s, GB/s, % of copy bandwidth, % of FMA rate, binding limit."""
    flops, nbytes = work(r)
    ms = float(r["median_ms"])
    gflops, gbps = flops / (ms * 1e6), nbytes / (ms * 1e6)
    copy, fma = lim
    pc = 100 * gbps / copy if copy else None
    pf = 100 * gflops / fma if fma else None
    bound = None
    if copy and fma:
        bound = "copy" if nbytes / copy >= flops / fma else "fma"
    # A step's row records its share of the binding limit (pct_limit, four
    # digits): show that one, so that a table and a value marker quoting the
    # same cell print the same figure. Recomputed here, it can land on the
    # other side of a rounding half (44.2504 against the CSV's 44.25).
    if r.get("pct_limit") and r.get("limit") in ("copy", "fma"):
        if r["limit"] == "copy":
            pc = float(r["pct_limit"])
        else:
            pf = float(r["pct_limit"])
    return {"gflops": gflops, "gbps": gbps, "pct_copy": pc, "pct_fma": pf, "bound": bound}


class Run:
    """One device's rows: the sweep's steps and serial, and its peers."""

    def __init__(self, tag):
        self.tag = tag
        self.rows = load("perf-" + tag)
        self.has_serial = any(r["step"] == "serial" for r in self.rows)
        command = SOURCES[tag]
        if command.startswith("bench/experiments.sh") and self.has_serial:
            command += SERIAL
        self.sources = ["`{}`".format(command)]
        ours = [r for r in self.rows if r["step"] in STEPS]
        self.device = ours[0]["device"]
        self.size = (ours[0]["width"], ours[0]["height"])
        self.lim = limits(self.rows)
        peers = [r for r in self.rows if r["step"] not in STEPS and r["step"] != "serial"]
        for name, command in PEER_FILES.get(tag, []):
            if _exists(name):
                extra = [r for r in load(name) if (r["width"], r["height"]) == self.size]
                peers += extra
                if extra:
                    self.sources.append("`{}`".format(command))
        self.peers = peers

    def widths(self):
        return [w for w in WIDTHS if any(int(r["filter_width"]) == w for r in self.rows)]

    def get(self, step, width, variant=None):
        for r in self.rows + self.peers:
            if r["step"] == step and int(r["filter_width"]) == width and (
                    variant is None or r["variant"] == variant):
                return r
        return None

    def serial_ms(self, width):
        r = self.get("serial", width)
        return float(r["median_ms"]) if r else None

    def peer_labels(self):
        out = []
        for r in self.peers:
            key = (r["step"], r["variant"])
            if key not in out:
                out.append(key)
        return out

    def lines(self):
        """(label, step, variant) for every line of a table: serial, steps, peers."""
        out = []
        if any(r["step"] == "serial" for r in self.rows):
            out.append(("serial loop", "serial", None))
        for s in STEPS:
            if any(r["step"] == s for r in self.rows):
                out.append((s, s, None))
        for step, variant in self.peer_labels():
            out.append(("*{} ({})*".format(step, variant), step, variant))
        return out

    def note(self):
        r = next(r for r in self.rows if r["step"] in STEPS)
        copy, fma = self.lim
        serial = next((x for x in self.rows if x["step"] == "serial"), None)
        others = "; the serial loop: median of {} runs".format(serial["reps"]) if serial else ""
        return ("\n*{} (driver {}), measured {}; {}x{} image, box filters, border {}, median of {} "
                "launches{}; measured limits: copy {} GB/s, FMA {} GFLOP/s. Made by {}.*\n").format(
            r["device"], r["driver"], r["date"], self.size[0], self.size[1], r["border"], r["reps"],
            others, fmt(copy), fmt(fma), " and ".join(self.sources))


_RUNS = {}


def _run(tag):
    """The device's run; perf-TAG.csv must exist (the page is about it)."""
    if tag not in _RUNS:
        _RUNS[tag] = Run(tag)
    return _RUNS[tag]


def _run_if(tag):
    """The same, or None where the CSV is missing (the seeds table's extras)."""
    return _run(tag) if _exists("perf-" + tag) else None


def _x(v):
    return "-" if v is None else "{}x".format(fmt(v))


# ---- generators -------------------------------------------------------------

def devices():
    """One line per device: its limits and where a filter turns compute-bound."""
    body = []
    for tag in ("pocl", GPU):
        run = _run(tag)
        copy, fma = run.lim
        ridge = next((w for w in range(1, 64) if
                      2.0 * w * w / (4.0 * 2) >= fma / copy), None) if copy and fma else None
        r = next(r for r in run.rows if r["step"] in STEPS)
        body.append([r["device"], r["driver"], "{}x{}".format(*run.size), fmt(copy), fmt(fma),
                     "F >= {}".format(ridge) if ridge else "-"])
    return table(["device", "driver", "image", "copy GB/s", "FMA GFLOP/s", "compute-bound from"], body) + (
        "\n*Copy and FMA: the limits measured by `common/machinery/probes.cl` on that device and driver; "
        "a filter is compute-bound when its 2F² flops per output take longer at the FMA rate "
        "than its 8 bytes per output (one read, one write) at the copy rate.*\n")


def steps_time(tag):
    """Median ms, and the speedup over the serial loop, per line and width."""
    run = _run(tag)
    widths = run.widths()
    body = []
    for label, step, variant in run.lines():
        line = [label]
        for w in widths:
            r = run.get(step, w, variant)
            if not r:
                line.append("-")
                continue
            ms = float(r["median_ms"])
            s = run.serial_ms(w)
            line.append(fmt(ms) if step == "serial" or not s else "{} ({})".format(fmt(ms), _x(s / ms)))
        body.append(line)
    has_serial = run.has_serial
    head = "median ms (x serial)" if has_serial else "median ms"
    return table([head] + ["F = {}".format(w) for w in widths], body) + run.note() + (
        "" if has_serial else "\n*This run has no serial baseline (it needs sweep's `{}`).*\n".format(
            SERIAL.strip()))


# The variant of the step before that a step builds on (Step::builds_on in
# the launchers): step 5 over step 4's "fixed", so that the ratio is float4
# loads alone, not the compile-time width as well.
BUILDS_ON = {"step5-vector": "fixed"}


def steps_prev(tag):
    """Each step's speedup over the step before it (step 1: over the serial loop)."""
    run = _run(tag)
    widths = run.widths()
    body = []
    for i, s in enumerate(STEPS):
        if i == 0 and not run.has_serial:
            continue
        line = [s + (" (over {} {})".format(STEPS[i - 1], BUILDS_ON[s]) if s in BUILDS_ON else "")]
        for w in widths:
            r = run.get(s, w)
            prev = run.get(STEPS[i - 1], w, BUILDS_ON.get(s)) if i else run.get("serial", w)
            line.append(_x(float(prev["median_ms"]) / float(r["median_ms"])) if r and prev else "-")
        body.append(line)
    return table(["x previous step"] + ["F = {}".format(w) for w in widths], body) + (
        "\n*Same run as above. Step 1 is compared with the serial loop{}; step 5 with step 4's "
        "`fixed` variant (its width is a compile-time constant too), so that the ratio is the float4 "
        "loads alone{}.*\n".format("" if run.has_serial else ", which this run lacks",
                                   "" if any(r["variant"] == "fixed" for r in run.rows) else
                                   "; this run has no `fixed` rows (it predates `--variants default,fixed`)"))


def steps_limits(tag):
    """% of the measured copy bandwidth / % of the measured FMA rate."""
    run = _run(tag)
    widths = run.widths()
    body = []
    for label, step, variant in run.lines():
        if step == "serial":
            label = "serial loop (1 core)"
        line = [label]
        for w in widths:
            r = run.get(step, w, variant)
            if not r:
                line.append("-")
                continue
            m = metrics(r, run.lim)
            pc, pf = fmt(m["pct_copy"]), fmt(m["pct_fma"])
            if m["bound"] == "copy":
                pc = "**" + pc + "**"
            elif m["bound"] == "fma":
                pf = "**" + pf + "**"
            line.append("{} / {}".format(pc, pf))
        body.append(line)
    return table(["% copy / % FMA"] + ["F = {}".format(w) for w in widths], body) + (
        "\n*Achieved GB/s over the measured copy bandwidth / achieved GFLOP/s over the measured "
        "FMA rate, in per cent; in bold the limit that binds at that width (the roofline bound "
        "of `common/machinery/roofline.hpp`). Peers are counted with the same bytes and flops as the steps.*\n")


def errors(tag):
    """Max abs error against the double-precision reference (max rel error where it is not finite)."""
    run = _run(tag)
    widths = run.widths()
    body = []
    for label, step, variant in run.lines():
        line = [label]
        for w in widths:
            r = run.get(step, w, variant)
            if not r or not r["max_abs_err"]:
                line.append("-")
                continue
            cell = "{:.2g}".format(float(r["max_abs_err"]))
            if r["max_rel_err"] and float(r["max_rel_err"]) == float("inf"):
                cell += " (rel. inf)"
            line.append(cell)
        body.append(line)
    return table(["max abs error"] + ["F = {}".format(w) for w in widths], body) + (
        "\n*Against the reference accumulated in double (`common/machinery/reference.cpp`); *rel. inf*: not 0 "
        "where the exact result is 0; -: not checked in this run.*\n")


def peers(tag):
    """The fastest step beside each peer, per width."""
    run = _run(tag)
    labels = run.peer_labels()
    if not labels:
        return "*No peer rows for {}.*\n".format(tag)
    body = []
    for w in run.widths():
        ours = [run.get(s, w) for s in STEPS]
        ours = [r for r in ours if r]
        best = min(ours, key=lambda r: float(r["median_ms"]))
        line = ["F = {}".format(w), "{} ({})".format(fmt(best["median_ms"]), best["step"])]
        for step, variant in labels:
            r = run.get(step, w, variant)
            line.append("{} ({})".format(fmt(r["median_ms"]), _x(float(best["median_ms"]) / float(r["median_ms"])))
                        if r else "-")
        best_peer = [r for r in (run.get(s, w, v) for s, v in labels) if r]
        if best_peer:
            p = min(best_peer, key=lambda r: float(r["median_ms"]))
            line.append("{} ({} {}): {}".format(fmt(p["median_ms"]), p["step"], p["variant"],
                                                _x(float(p["median_ms"]) / float(best["median_ms"]))))
        else:
            line.append("-")
        body.append(line)
    head = ["filter", "our fastest step, ms"] + ["{} {}, ms (x ours)".format(s, v) for s, v in labels] + [
        "best peer, ms: ours x faster"]
    return table(head, body) + (
        "\n*In brackets: our fastest step's time over the peer's, the peer's speedup over it; "
        "below 1x our step is the faster. Last column: the fastest peer at that width, and its "
        "time over our fastest step's (above 1x ours is the faster).*\n")


# The source documents' headline numbers, quoted from each document, and the
# rows of our CSVs that measure the same thing.
def _ratio(a, b):
    return a / b if a and b else None


def _ms(name, **match):
    if not _exists(name):
        return None
    r = pick(load(name), **match)
    return float(r["median_ms"]) if r else None


def _field(name, field, **match):
    if not _exists(name):
        return None
    r = pick(load(name), **match)
    return float(r[field]) if r and r[field] else None


def _src_course_report(tag):
    vals = [_field("steps1to4-" + tag, "speedup_serial", step="step3-local", filter_width=w, wg="16x16")
            for w in ("3", "7")]
    return "{} / {}".format(*(_x(v) for v in vals)) if any(vals) else "-"


def _src_final_exam_unroll(tag):
    v = _ratio(_ms("tour-" + tag, step="step3-local"), _ms("tour-" + tag, step="step4-unroll", variant="fixed"))
    return _x(v)


def _src_final_exam_align(tag):
    name = "vector-" + tag
    vals = [_ratio(_ms(name, width=s, variant="float4 aligned=off"), _ms(name, width=s, variant="float4"))
            for s in ("1919", "2048")]
    return "{} / {}".format(*(_x(v) for v in vals)) if any(vals) else "-"


def _src_multidim_post(tag):
    run = _run_if(tag)
    if not run or 31 not in run.widths():
        return "-"
    a, b = run.get("step1-naive", 31), run.get("step6-multioutput", 31)
    if not a or not b:
        return "-"
    return "{} % / {} %".format(fmt(metrics(a, run.lim)["pct_fma"]), fmt(metrics(b, run.lim)["pct_fma"]))


def _src_amd_tutorial(tag):
    run = _run_if(tag)
    if not run:
        return "-"
    out = []
    for w in (15, 31):
        a, b = run.get("step3-local", w), run.get("step4-unroll", w)
        out.append("{:.0f} %".format(100 * float(b["median_ms"]) / float(a["median_ms"])) if a and b else "-")
    return " / ".join(out)


def _src_histogram_post(tag):
    name = "histogram-" + tag
    vals = [_ms(name, variant=v, phase="histogram") for v in ("global-partials", "device-merge", "serial")]
    if not all(vals):
        return "-"
    return " / ".join("{} ms".format(fmt(v)) for v in vals)


SEEDS = [
    ("the course report", "not named (the report speaks of CUDA threads)",
     "600x400, tile in local memory (16x16) over the serial loop, F = 3 / 7", "9.06x / 44.96x", _src_course_report),
    ("the final-exam report", "AMD Radeon HD 6770M, 6 compute units at 675 MHz, OpenCL 1.1",
     "7x7 motion blur: loops fully unrolled, time of the rolled loop over the unrolled one "
     "(theirs: 512x512 to 2048x2048; ours: 2048x2048)", "4.5x (with float4 reads)", _src_final_exam_unroll),
    ("the final-exam report", "AMD Radeon HD 6770M",
     "rows padded to a multiple of the work-group width: unpadded time over padded (1919 / 2048)",
     "no difference", _src_final_exam_align),
    ("the multi-dimensional post", "AMD Radeon HD 6970 (2.52 TFLOP/s peak, counting an FMA as one operation)",
     "share of the FMA peak, naive kernel / register-blocked kernel (theirs: 7x7x7 on a 256³ volume, "
     "8 filters; ours: F = 31)", "about 10 % / about 65 %", _src_multidim_post),
    ("AMD's tutorial", "AMD Phenom X4 9950 (2.6 GHz) host, ATI Stream SDK 2.0 beta; the device is not named",
     "loop unrolled by four, time over the plain loop (theirs: F = 16 to 20; ours: F = 15 / 31)",
     "74 % to 92 %", _src_amd_tutorial),
    ("the histogram post", "Intel Core i7-3540M with HD Graphics 4000 (MacBook Pro)",
     "histogram of a 7728x4354 image, whole call: per-work-item partials merged on the host / "
     "merged on the device / a serial count (theirs: PIL's)", "0.9 s + 18 s / 2.5 s / 1.5 s", _src_histogram_post),
]


def seeds():
    body = []
    for seed, hardware, what, theirs, ours in SEEDS:
        body.append([seed, hardware, what, theirs, ours("pocl"), ours("h100"), ours(GPU)])
    return table(["source", "their hardware", "what", "theirs", "ours, PoCL", "ours, H100", "ours, H200"],
                 body) + (
        "\n*Theirs: as each document reports it. Ours: from `docs/results/` (the course report: "
        "`steps1to4-*.csv`; the final-exam report: `tour-*.csv` and `vector-*.csv`; the multi-dimensional post and AMD's tutorial: "
        "`perf-*.csv`; the histogram post: `histogram-*.csv`); - where we have no such run.*\n")


GENERATORS = {"results-devices": devices, "results-time": steps_time, "results-prev": steps_prev,
              "results-limits": steps_limits, "results-peers": peers, "results-errors": errors, "results-seeds": seeds}


# ---- figures ----------------------------------------------------------------

def _format_axes(ax, run, widths, ylabel):
    """Log-log axes over the filter widths, shared by both results figures."""
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(widths)
    ax.set_xticklabels([str(w) for w in widths])
    ax.set_xlabel("filter width F (box)")
    ax.set_ylabel(ylabel)
    ax.set_title("{} ({}x{})".format(run.device, *run.size), fontsize=9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3)


def figures(plt):
    runs = [_run("pocl"), _run(GPU)]
    styles = {s: m for s, m in zip(STEPS, "os^vDP")}

    def peer_style(run, step, variant):
        i = run.peer_labels().index((step, variant))
        return dict(color=("0.35", "0.6")[i % 2], linestyle=(":", "-.")[i % 2], marker="*x"[i % 2],
                    label="{} {}".format(step, variant))

    fig, axes = plt.subplots(1, len(runs), figsize=(5.6 * len(runs), 5.2), squeeze=False)
    for ax, run in zip(axes[0], runs):
        widths = run.widths()
        for label, step, variant in run.lines():
            pts = [(w, run.get(step, w, variant)) for w in widths]
            pts = [(w, float(r["median_ms"])) for w, r in pts if r]
            if step == "serial":
                kw = dict(color="black", linestyle="--", marker="x", label="serial loop")
            elif step in STEPS:
                kw = dict(marker=styles[step], label=step)
            else:
                kw = peer_style(run, step, variant)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], markersize=4, **kw)
        _format_axes(ax, run, widths, "median ms")
    fig.tight_layout()
    fig.savefig(os.path.join(FIGURES, "results-time.svg"), metadata={"Date": None})
    plt.close(fig)

    fig, axes = plt.subplots(1, len(runs), figsize=(5.6 * len(runs), 5.2), squeeze=False)
    for ax, run in zip(axes[0], runs):
        widths = run.widths()
        copy, fma = run.lim
        w_, h_ = int(run.size[0]), int(run.size[1])
        fine = [w / 4.0 for w in range(4 * min(widths), 4 * max(widths) + 1)]
        bound = [min(fma, copy * (2.0 * f * f * w_ * h_) / (4.0 * ((w_ + f - 1) * (h_ + f - 1) + w_ * h_)))
                 for f in fine]
        ax.plot(fine, bound, color="0.75", linewidth=3, label="roofline bound")
        for label, step, variant in run.lines():
            if step == "serial":
                continue
            pts = [(w, run.get(step, w, variant)) for w in widths]
            pts = [(w, metrics(r, run.lim)["gflops"]) for w, r in pts if r]
            if step in STEPS:
                kw = dict(marker=styles[step], label=step)
            else:
                kw = peer_style(run, step, variant)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], markersize=4, **kw)
        _format_axes(ax, run, widths, "GFLOP/s (2F² per output)")
    fig.tight_layout()
    fig.savefig(os.path.join(FIGURES, "results-roofline.svg"), metadata={"Date": None})
    plt.close(fig)
