# The histogram lesson's tables (docs/histogram.md), from the CSVs that
# bench/histogram.sh TAG writes: histogram-TAG (every variant, synthetic image),
# histogram-bench-TAG (random and single-color images), histogram-floor-TAG
# (two kernels that count nothing), histogram-breakdown-TAG and
# histogram-breakdown-full-TAG (the cost of OpenCL, phase by phase).
import difflib
import os

from docs import load, table, fmt, caption, pick, ROOT, RESULTS

DEVICES = [("pocl", "PoCL"), ("h200", "H200")]

# Quoted from seed 002 (the 2013 blog post): its cost-of-OpenCL table, in
# seconds, for a 1048576-int buffer and a kernel of one atom_inc per element,
# in pyopencl on a MacBook Pro. Not measured here.
SEED002 = {
    "cpu": ("seed 002: Core i7-3540M", {"queue": 0.006128, "read": 0.000031, "build": 0.006540,
                                        "buffer": 0.000191, "run": 0.000128, "total": 0.013018}),
    "gpu": ("seed 002: HD Graphics 4000", {"queue": 0.010630, "read": 0.000050, "build": 0.006650,
                                           "buffer": 0.001557, "run": 0.000194, "total": 0.019081}),
}


def ms(value):
    """Milliseconds, or microseconds under 1 ms so that small times keep digits."""
    if value in (None, ""):
        return "-"
    v = float(value)
    return fmt(v * 1000) + " µs" if v < 1 else fmt(v) + " ms"


def kernel_diff(older, newer):
    """The unified diff between two kernel files of histogram/."""
    with open(os.path.join(ROOT, "histogram", older)) as f:
        a = f.readlines()
    with open(os.path.join(ROOT, "histogram", newer)) as f:
        b = f.readlines()
    diff = difflib.unified_diff(a, b, "histogram/" + older, "histogram/" + newer, n=2)
    return "```diff\n" + "".join(diff) + "```\n"


def variants_in(rows):
    names = []
    for r in rows:
        if r["variant"] not in names:
            names.append(r["variant"])
    return names


def variants(tag):
    """Every variant on the synthetic image: where the time goes."""
    rows = load("histogram-" + tag)
    body = []
    for v in variants_in(rows):
        get = {r["phase"]: r for r in rows if r["variant"] == v}
        total = get["histogram"]
        k = get.get("kernels")
        body.append([v, ms(k["median_ms"]) if k else "-",
                     ms(get["read back"]["median_ms"]) if "read back" in get else "-",
                     ms(get["host merge"]["median_ms"]) if "host merge" in get else "-",
                     ms(total["median_ms"]), fmt(k["gbps"]) if k else "-",
                     fmt(k["pct_copy"]) + " %" if k else "-", fmt(total["speedup_serial"]) + "x"])
    r0 = rows[0]
    return table(["variant", "kernels", "read back", "host merge", "total", "GB/s (kernels)",
                  "% of copy", "x serial"], body) + caption(rows, "bench/histogram.sh " + tag) + (
        "\n{} ({}x{}, {:.0f} MB), median of {} runs. *kernels*: the device's work, from the first "
        "fill or kernel to the last kernel's end (profiling events); *GB/s*: image bytes over that "
        "time; *% of copy*: of the copy bandwidth measured on this device ({} GB/s); *x serial*: "
        "the serial count's time over *total*.\n".format(
            r0["image"].split(":")[0], r0["width"], r0["height"],
            3e-6 * int(r0["width"]) * int(r0["height"]), r0["reps"], fmt(r0["copy_gbps"])))


def bench(tag):
    """Random against single-color images, and the two floors."""
    rows = load("histogram-bench-" + tag)
    floors = load("histogram-floor-" + tag)
    images = []
    for r in rows:
        if r["image"] not in images:
            images.append(r["image"])
    body = []

    def line(label, source, variant, phase):
        cells = [label]
        for image in images:
            r = pick(source, variant=variant, image=image, phase=phase)
            if not r:
                cells += ["-", "-", "-"]
            elif variant == "floor-launch":  # reads nothing: a time, not a bandwidth
                cells += [ms(r["median_ms"]), "-", "-"]
            else:
                cells += [ms(r["median_ms"]), fmt(r["gbps"]), fmt(r["pct_copy"]) + " %"]
        return cells

    body.append(line("serial", rows, "serial", "histogram"))
    for v in variants_in(rows):
        if v != "serial":
            body.append(line(v, rows, v, "kernels"))
    for v in variants_in(floors):
        body.append(line("*{}*".format(v), floors, v, "kernels"))
    header = ["variant"]
    for image in images:
        kind = "random" if image.startswith("noise") else \
            "single color" if image.startswith("solid") else image.split(":")[0]
        header += [kind + ": time", "GB/s", "% of copy"]
    r0 = rows[0]
    return table(header, body) + caption(rows, "bench/histogram.sh " + tag) + (
        "\n{}x{} images (`{}`), median of {} runs; device variants: the kernels' time (as above); "
        "copy bandwidth {} GB/s. The floors are the two kernels that count nothing "
        "(`histogram/floor_launch.cl`, `histogram/floor_read.cl`), timed in local-atomic's place.\n"
        .format(r0["width"], r0["height"], "`, `".join(images), r0["reps"], fmt(r0["copy_gbps"])))


def phase(rows, name, key):
    r = pick(rows, phase=name)
    return float(r[key]) if r and r[key] else None


def breakdown():
    """The source's cost-of-OpenCL table beside ours (global-partials, 1024x1024)."""
    ours = [(label, load("histogram-breakdown-" + tag)) for tag, label in DEVICES
            if os.path.exists(os.path.join(RESULTS, "histogram-breakdown-{}.csv".format(tag)))]
    lines = [  # label, seed key, our phases (summed)
        ("platform, context and queue", "queue", ["platform", "context", "queue"]),
        ("read the kernel source", "read", ["read source"]),
        ("build the program (cold)", "build", ["build (cold)"]),
        ("build from our binary cache (warm)", None, ["build (warm)"]),
        ("create buffers, upload the image", "buffer", ["create buffers", "upload image"]),
        ("first launch, waited for", "run", ["first launch"]),
        ("read back", None, ["read back"]),
        ("host merge", None, ["host merge"]),
        ("**total, cold build**", "total", ["total (cold build)"]),
        ("**total, warm build**", None, ["total (warm build)"]),
        ("serial count, for comparison", None, ["serial count"]),
    ]
    header = ["phase"] + [SEED002[k][0] for k in ("cpu", "gpu")]
    for label, _ in ours:
        header += ["{}, first".format(label), "{}, median".format(label)]
    body = []
    for label, seed_key, phases in lines:
        cells = [label]
        for k in ("cpu", "gpu"):
            cells.append(ms(SEED002[k][1][seed_key] * 1000) if seed_key else "-")
        for _, rows in ours:
            for key in ("first_ms", "median_ms"):
                values = [phase(rows, p, key) for p in phases]
                if key == "first_ms" and phases == ["serial count"]:
                    values = [None]  # timed as repetitions, not rounds
                cells.append(ms(sum(values)) if None not in values else "-")
        body.append(cells)
    notes = []
    for label, rows in ours:
        r = rows[0]
        notes.append("*{}: {} (driver {}), measured {}; `bench/histogram.sh {}`.*".format(
            label, r["device"], r["driver"], r["date"], [t for t, l in DEVICES if l == label][0]))
    r = pick(ours[0][1], variant="global-partials") if ours else None
    return table(header, body) + "\n" + "\n".join(notes) + "\n" + (
        "\nOurs: global-partials on a {}x{} synthetic image, {} fresh start-ups in one process; "
        "*first* is the first of them (it also loads the driver), *median* the median of all. "
        "The seed 002 columns are quoted from the post (one run each, in seconds there, "
        "milliseconds here); its *run program* timed the enqueue only, without waiting.\n".format(
            r["width"], r["height"], r["reps"]) if r else "")


def full(tag):
    """Every variant from nothing on the source's image size, against the serial count."""
    rows = load("histogram-breakdown-full-" + tag)

    def med(v, *phases):
        values = [phase([r for r in rows if r["variant"] == v], p, "median_ms") for p in phases]
        values = [x for x in values if x is not None]
        return sum(values) if values else None

    body = []
    for v in variants_in(rows):
        if v == "serial":
            continue
        warm = pick(rows, variant=v, phase="total (warm build)")
        body.append([v, ms(med(v, "platform", "context", "queue")), ms(med(v, "build (cold)")),
                     ms(med(v, "build (warm)")), ms(med(v, "create buffers", "upload image")),
                     ms(med(v, "first launch")), ms(med(v, "read back", "host merge")),
                     ms(med(v, "total (cold build)")), ms(med(v, "total (warm build)")),
                     fmt(warm["speedup_serial"]) + "x" if warm else "-"])
    serial = pick(rows, variant="serial")
    r0 = pick(rows, variant=variants_in(rows)[-1])
    return table(["variant", "start-up", "build, cold", "build, warm", "buffers + upload",
                  "first launch", "read back + merge", "total, cold", "total, warm",
                  "x serial (warm)"], body) + caption(rows, "bench/histogram.sh " + tag) + (
        "\n{}x{} synthetic image; medians of {} fresh start-ups per variant. *start-up*: platform, "
        "context and queue; *x serial*: the serial count ({}) over the warm total.\n".format(
            r0["width"], r0["height"], r0["reps"], ms(serial["median_ms"]) if serial else "-"))


def goal(tag, percent="75"):
    """One paragraph: does local-words reach `percent` % of the copy bandwidth for
    the whole call (kernels and read-back) on both large images, and how far
    is the floor of a call that counts nothing?"""
    rows = load("histogram-bench-" + tag) + load("histogram-" + tag)
    floors = load("histogram-floor-" + tag)
    calls = [pick(rows, variant="local-words", phase="histogram", image=i)
             for i in sorted({r["image"] for r in rows if not r["image"].startswith("solid")})]
    calls = [c for c in calls if c]
    launch = pick(floors, variant="floor-launch", phase="histogram")
    read = pick(floors, variant="floor-read", phase="histogram")
    met = all(float(c["pct_copy"]) >= float(percent) for c in calls)
    budget = 3.0 * int(calls[0]["width"]) * int(calls[0]["height"]) / (float(calls[0]["copy_gbps"]) * 1e6) / (
        float(percent) / 100)
    return (
        "**The goal, {p} % of the copy bandwidth for the whole call (kernels and read-back) on both "
        "{w}x{h} images, is {verdict} on the {dev}.** local-words takes {calls}. At the measured "
        "{copy} GB/s the goal allows {budget} for the call; a call whose kernel counts nothing "
        "(floor-launch: the fill, the launch and the read-back) already takes {lt} ({lpct} %), and one "
        "whose kernel only reads the image {rt} ({rpct} %).\n"
        "\n*`bench/histogram.sh {tag}`: histogram-{tag}.csv, histogram-bench-{tag}.csv and "
        "histogram-floor-{tag}.csv, measured {date}.*\n").format(
        p=percent, w=calls[0]["width"], h=calls[0]["height"], verdict="met" if met else "not met",
        dev=calls[0]["device"],
        calls=" and ".join("{} on `{}` ({} % of copy)".format(ms(c["median_ms"]), c["image"], fmt(c["pct_copy"]))
                           for c in calls),
        copy=fmt(calls[0]["copy_gbps"]), budget=ms(budget), lt=ms(launch["median_ms"]),
        lpct=fmt(launch["pct_copy"]), rt=ms(read["median_ms"]), rpct=fmt(read["pct_copy"]),
        tag=tag, date=calls[0]["date"])


def peers(tag):
    """The library calls beside local-words, whole call and (where there is one) kernel alone."""
    rows = load("histogram-peers-" + tag)
    ours = load("histogram-bench-" + tag)
    images = []
    for r in rows:
        if r["image"] not in images:
            images.append(r["image"])
    body = []
    names = ["local-words"] + variants_in(rows)
    for v in names:
        src = ours if v == "local-words" else rows
        cells = ["**local-words** (ours)" if v == "local-words" else "{} ({})".format(
            v.replace(";", ","), pick(rows, variant=v)["driver"])]
        for image in images:
            k = pick(src, variant=v, image=image, phase="kernels")
            h = pick(src, variant=v, image=image, phase="histogram")
            ref = pick(ours, variant="local-words", image=image, phase="histogram")
            cells += [ms(k["median_ms"]) if k else "-", ms(h["median_ms"]) if h else "(wrong counts)",
                      "{:.2f}x".format(float(h["median_ms"]) / float(ref["median_ms"])) if h and ref else "-"]
        body.append(cells)
    header = ["call"]
    for image in images:
        kind = "random" if image.startswith("noise") else "single color"
        header += [kind + ": kernels", "whole call", "over ours"]
    r0 = rows[0]
    return table(header, body) + caption(rows, "bench/device-run.sh part histpeers" if tag != "pocl" else
                                         "python3 bench/histogram_peers.py --peers numpy,opencv") + (
        "\n{}x{} images; median of {} calls. *whole call*: from the bytes on the device to the 768 "
        "counts on the host; *kernels*: CUDA events around the library call alone (CUB), or our "
        "kernels' profiling events; *over ours*: the call's time over local-words' whole call in "
        "the same run (above 1x ours is the faster). The peers' random image has the same "
        "statistics as ours, not the same bytes (CUB's is the same bytes); each peer's counts are "
        "checked, and a call whose counts are wrong gets no time.{}\n".format(
            r0["width"], r0["height"], r0["reps"],
            "" if r0["date"] == ours[0]["date"] else
            " Ours and the peers come from different runs here ({} and {}), so *over ours* is only "
            "a rough ratio.".format(ours[0]["date"], r0["date"])))


GENERATORS = {
    "histogram-goal": goal,
    "histogram-peers": peers,
    "histogram-diff": kernel_diff,
    "histogram-variants": variants,
    "histogram-bench": bench,
    "histogram-breakdown": breakdown,
    "histogram-full": full,
}
