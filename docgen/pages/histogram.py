# The histogram lesson's tables (docs/histogram.md), from the CSVs that
# bench/histogram.sh TAG writes: histogram-TAG (every variant, synthetic image),
# histogram-bench-TAG (random and single-color images), histogram-floor-TAG
# (two kernels that count nothing), histogram-breakdown-TAG and
# histogram-breakdown-full-TAG (the cost of OpenCL, phase by phase).
import difflib
import os

from tables import load, table, fmt, caption, pick, ROOT, RESULTS

DEVICES = [("pocl", "PoCL"), ("h100", "H100")]

# The call to bench/device-run.sh that makes a GPU's histogram CSVs, the
# sweep and the peers included (quoted under the sweep's tables).
DEVICE_RUNS = {
    # The H100's histogram CSVs come from two runs of one day: this one made
    # the breakdowns and the sweep; LANES_RUNS' made the rest and the peers.
    "h100": ("H100", 'TAG=h100 PARTS=histogram HISTOGRAM_PARTS="breakdown full sweep" '
                     'OUT=DIR bench/device-run.sh'),
    "h200": ("H200", 'TAG=h200 PARTS="histogram histpeers" HISTOGRAM_PARTS="main bench floor sweep" '
                     'OUT=DIR bench/device-run.sh'),
}

# Quoted from the histogram post (the 2013 blog post): its cost-of-OpenCL table, in
# seconds, for a 1048576-int buffer and a kernel of one atom_inc per element,
# in pyopencl on a MacBook Pro. Not measured here.
SOURCE_POST = {
    "cpu": ("the histogram post: Core i7-3540M", {"queue": 0.006128, "read": 0.000031, "build": 0.006540,
                                        "buffer": 0.000191, "run": 0.000128, "total": 0.013018}),
    "gpu": ("the histogram post: HD Graphics 4000", {"queue": 0.010630, "read": 0.000050, "build": 0.006650,
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
    has_call = any(r["phase"] == "call" for r in rows)
    body = []
    for v in variants_in(rows):
        get = {r["phase"]: r for r in rows if r["variant"] == v}
        total = get["histogram"]
        k = get.get("kernels")
        call = get.get("call")
        body.append([v, ms(k["median_ms"]) if k else "-",
                     ms(get["read back"]["median_ms"]) if "read back" in get else "-",
                     ms(get["host merge"]["median_ms"]) if "host merge" in get else "-",
                     ms(total["median_ms"]), fmt(k["gbps"]) if k else "-",
                     fmt(k["pct_copy"]) + " %" if k else "-", fmt(total["speedup_serial"]) + "x"]
                    + ([ms(call["median_ms"]), fmt(call["pct_copy"]) + " %"] if call else
                       ["-", "-"] if has_call else []))
    r0 = rows[0]
    return table(["variant", "kernels", "read back", "host merge", "total", "GB/s (kernels)",
                  "% of copy", "x serial"] + (["whole call", "% of copy (call)"] if has_call else []),
                 body) + caption(rows, "bench/histogram.sh " + tag) + (
        "\n{} ({}x{}, {:.0f} MB), median of {} runs. *kernels*: the device's work, from the first "
        "fill or kernel to the last kernel's end (profiling events); *GB/s*: image bytes over that "
        "time; *% of copy*: of the copy bandwidth measured on this device ({} GB/s); *x serial*: "
        "the serial count's time over *total*.{}\n".format(
            r0["image"].split(":")[0], r0["width"], r0["height"],
            3e-6 * int(r0["width"]) * int(r0["height"]), r0["reps"], fmt(r0["copy_gbps"]),
            " *whole call*: the host's clock from the first enqueue to the counts on the host, with "
            "the read-back enqueued right behind the kernels and one wait (the program's view; "
            "*total* adds the device's time and a separate blocking read)." if has_call else ""))


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
            elif variant in ("floor-launch", "floor-ahead-empty", "floor-ahead-count"):
                # reads nothing: a time, not a bandwidth
                cells += [ms(r["median_ms"]), "-", "-"]
            else:
                cells += [ms(r["median_ms"]), fmt(r["gbps"]), fmt(r["pct_copy"]) + " %"]
        return cells

    body.append(line("serial", rows, "serial", "histogram"))
    for v in variants_in(rows):
        if v != "serial":
            body.append(line(v, rows, v, "kernels"))
    for v in variants_in(floors):
        if v.startswith("floor-"):
            body.append(line("*{}*".format(v), floors, v, "kernels"))
    header = ["variant"]
    for image in images:
        kind = "random" if image.startswith("noise") else \
            "single color" if image.startswith("solid") else image.split(":")[0]
        header += [kind + ": time", "GB/s", "% of copy"]
    r0 = rows[0]
    return table(header, body) + caption(rows, "bench/histogram.sh " + tag) + (
        "\n{}x{} images (`{}`), median of {} runs; device variants: the kernels' time (as above); "
        "copy bandwidth {} GB/s. The floors are kernels that do part of the work: "
        "`histogram/floor_launch.cl` and `histogram/floor_read.cl` (nothing; only the reads) in "
        "local-atomic's place, after its fill{}.\n"
        .format(r0["width"], r0["height"], "`, `".join(images), r0["reps"], fmt(r0["copy_gbps"]),
                "; `histogram/floor_ahead_empty.cl`, `floor_ahead_read.cl` and "
                "`floor_ahead_count.cl` (nothing; only the reads; only the atomics, on hashed "
                "bytes) in loads-ahead's place" if any(v.startswith("floor-ahead-")
                                                      for v in variants_in(floors)) else ""))


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
    header = ["phase"] + [SOURCE_POST[k][0] for k in ("cpu", "gpu")]
    for label, _ in ours:
        header += ["{}, first".format(label), "{}, median".format(label)]
    body = []
    for label, seed_key, phases in lines:
        cells = [label]
        for k in ("cpu", "gpu"):
            cells.append(ms(SOURCE_POST[k][1][seed_key] * 1000) if seed_key else "-")
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
        "The histogram post columns are quoted from the post (one run each, in seconds there, "
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


def best(rows):
    """Our fastest variant in these rows: loads-ahead, else one-launch, where measured."""
    for v in ("loads-ahead", "one-launch"):
        if any(r["variant"] == v for r in rows):
            return v
    return "local-words"


def whole(rows, variant, image):
    """A variant's whole call on an image: the host's clock where measured, else
    the device's time plus a blocking read."""
    return (pick(rows, variant=variant, phase="call", image=image) or
            pick(rows, variant=variant, phase="histogram", image=image))


def goal(tag, percent=75.0, slack_ms=0.010, over_cub=1.5, spread=1.03):
    """One paragraph: the histogram's four goals on the large images, each met
    or not, with the figures that decide it: our best variant's kernels at
    `percent` % of the copy bandwidth or more, its whole call at most
    `slack_ms` over its kernels, `over_cub` times CUB's whole call or faster
    in the same run, and a single-color image no slower than a random one
    (within a factor `spread`)."""
    rows = load("histogram-bench-" + tag) + load("histogram-" + tag)
    cub = [r for r in load("histogram-peers-" + tag) if r["step"] == "cub" and r["phase"] == "histogram"]
    v = best(rows)
    size = rows[0]["width"] + "x" + rows[0]["height"]
    kern, call = {}, {}
    for kind in ("noise", "synthetic", "solid"):
        k = pick(rows, variant=v, phase="kernels", image=kind + ":" + size)
        if k:
            kern[kind], call[kind] = k, pick(rows, variant=v, phase="call", image=kind + ":" + size)
    k0 = next(iter(kern.values()))
    budget = 3.0 * int(k0["width"]) * int(k0["height"]) / (float(k0["copy_gbps"]) * 1e6) / (
        percent / 100)
    pcts = [float(k["pct_copy"]) for k in kern.values()]
    extra = [float(call[i]["median_ms"]) - float(kern[i]["median_ms"]) for i in kern]
    against = [(r["image"], float(r["median_ms"]) / float(call[r["image"].split(":")[0]]["median_ms"]))
               for r in cub if r["image"].split(":")[0] in call]
    one = float(kern["solid"]["median_ms"]) / float(kern["noise"]["median_ms"])

    def verdict(ok):
        return "**met**" if ok else "**not met**"

    def span(values, form):
        lo, hi = min(values), max(values)
        return form(lo) if form(lo) == form(hi) else form(lo) + " to " + form(hi)
    return (
        "**The histogram's goals on the {dev}, for {v} on the {size} images.** Kernels at {p:g} % "
        "of the copy bandwidth or more ({budget}): {m1}, {pcts} %. The whole call at most {slack:g} "
        "µs over the kernels: {m2}, {extras} over. At least {oc:g} times as fast as CUB's whole call "
        "in the same run: {m3}, {cubs}. A single-color image no slower than a random one (within "
        "{sp:.0f} %): {m4}, {one:.3f} times.\n"
        "\n*`bench/histogram.sh {tag}` and `bench/device-run.sh` part histpeers: histogram-{tag}.csv, "
        "histogram-bench-{tag}.csv and histogram-peers-{tag}.csv, measured {date}.*\n").format(
        dev=k0["device"], v=v, size=size, p=percent, budget=ms(budget),
        m1=verdict(min(pcts) >= percent), pcts=span(pcts, fmt),
        slack=slack_ms * 1000, m2=verdict(max(extra) <= slack_ms), extras=span(extra, ms),
        oc=over_cub, m3=verdict(bool(against) and min(x for _, x in against) >= over_cub),
        cubs=", ".join("{:.2f}x on `{}`".format(x, i) for i, x in against) or "CUB was not measured",
        sp=(spread - 1) * 100, m4=verdict(one <= spread), one=one, tag=tag, date=k0["date"])


def fixed(tag):
    """The fixed cost of a call: the two fastest variants on a 16x16 image."""
    floors = load("histogram-floor-" + tag)
    rows = [r for r in floors if r["image"] == "noise:16x16"]
    body = []
    for v in variants_in(rows):
        get = {r["phase"]: r for r in rows if r["variant"] == v}
        body.append([v] + [ms(get[p]["median_ms"]) if p in get else "-"
                           for p in ("kernels", "read back", "histogram", "call")])
    return table(["variant", "kernels", "blocking read", "total", "whole call"], body) + caption(
        rows, "bench/histogram.sh " + tag) + (
        "\n`noise:16x16` (768 bytes), median of {} runs. *kernels*: the fill and the kernel "
        "(local-words) or the kernel alone (one-launch, loads-ahead), by profiling events; *total*: kernels plus "
        "the blocking read; *whole call*: the host's clock from the first enqueue to the counts on "
        "the host.\n".format(rows[0]["reps"]))


def sweep(tag):
    """one-launch over pixels per work-item and work-group size, then over local copies."""
    rows = load("histogram-sweep-" + tag)
    grid = [r for r in rows if r["variant"] == "one-launch" and r["phase"] in ("kernels", "call")]
    chunks = sorted({int(r["chunk"]) for r in grid})
    wgs = sorted({int(r["wg"]) for r in grid})
    pixels = int(rows[0]["width"]) * int(rows[0]["height"])
    body = []
    for wg in wgs:
        cells = ["{} work-items".format(wg)]
        for c in chunks:
            k = pick(grid, phase="kernels", chunk=str(c), wg=str(wg))
            w = pick(grid, phase="call", chunk=str(c), wg=str(wg))
            cells.append("{} / {} ({} groups)".format(ms(k["median_ms"]), ms(w["median_ms"]),
                                                      -(-pixels // (c * wg))) if k and w else "-")
        body.append(cells)
    first = table(["one-launch, random image"] + ["{} pixels per work-item".format(c) for c in chunks],
                  body)
    copies = [v for v in variants_in(rows) if v.startswith("one-launch copies=")]
    images = []
    for r in rows:
        if r["variant"] in copies and r["image"] not in images:
            images.append(r["image"])
    body = []
    for v in copies:
        cells = [v.split("=")[1]]
        for image in images:
            k = pick(rows, variant=v, phase="kernels", image=image)
            w = pick(rows, variant=v, phase="call", image=image)
            cells.append("{} / {}".format(ms(k["median_ms"]), ms(w["median_ms"])) if k and w else "-")
        body.append(cells)
    second = table(["local copies"] + ["`{}`".format(i) for i in images], body)
    return first + "\n" + second + caption(rows, "PARTS=sweep bench/histogram.sh " + tag) + (
        "\nEach cell: the kernel (profiling events) / the whole call (host's clock), median of {} "
        "runs. The first table has 16 local copies (the default); the second has {} pixels per "
        "work-item and {} work-items, with COPIES set in the kernel file.{}\n".format(
            rows[0]["reps"], pick(rows, variant=copies[0])["chunk"],
            pick(rows, variant=copies[0])["wg"],
            " The {} run that made the sweep: `{}`.".format(*DEVICE_RUNS[tag])
            if tag in DEVICE_RUNS else "") if copies else "")


LANES_RUNS = {
    "h100": ("H100", 'bench/build-cub-histogram.sh; TAG=h100 PARTS="histogram histpeers" '
                     'HISTOGRAM_PARTS="main bench floor lanes" OUT=DIR bench/device-run.sh'),
}


def lanes(tag):
    """lane-copies beside one-launch under each wait and read-back; then lane-copies' loads."""
    rows = load("histogram-lanes-" + tag)
    images = []
    for r in rows:
        if r["image"] not in images and " wait=" in r["variant"]:
            images.append(r["image"])
    modes = [v for v in variants_in(rows) if " wait=" in v]
    body = []
    for v in modes:
        name, wait, read = v.split(" ")
        cells = [name, "`--{}`".format(wait.replace("=", " ")), "`--{}`".format(read.replace("=", " "))]
        for image in images:
            k = pick(rows, variant=v, phase="kernels", image=image)
            w = pick(rows, variant=v, phase="call", image=image)
            cells.append("{} / {}".format(ms(k["median_ms"]), ms(w["median_ms"])) if k and w else "-")
        body.append(cells)
    first = table(["variant", "wait", "read"] + ["`{}`".format(i) for i in images], body)
    loads = [v for v in variants_in(rows) if v.startswith("lane-copies loads=")]
    grid = [r for r in rows if r["variant"] in loads]
    chunks = sorted({int(r["chunk"]) for r in grid})
    body = []
    for v in loads:
        cells = [v.split("=")[1]]
        for c in chunks:
            k = pick(grid, variant=v, phase="kernels", chunk=str(c))
            w = pick(grid, variant=v, phase="call", chunk=str(c))
            cells.append("{} / {}".format(ms(k["median_ms"]), ms(w["median_ms"])) if k and w else "-")
        body.append(cells)
    second = table(["lane-copies, random image: loads in flight"] +
                   ["{} pixels per work-item".format(c) for c in chunks], body)
    return first + "\n" + second + caption(rows, "PARTS=lanes bench/histogram.sh " + tag) + (
        "\nEach cell: the kernel (profiling events) / the whole call (host's clock), median of {} "
        "runs, {} work-items per group. The first table has each variant's default pixels per "
        "work-item and lane-copies' two loads; the second sets LOADS in the kernel file and runs "
        "with `--wait block --read copy`.{}\n".format(
            rows[0]["reps"], rows[0]["wg"],
            " The {} run, with the variants' tables and the peers: `{}`.".format(*LANES_RUNS[tag])
            if tag in LANES_RUNS else ""))


def peers(tag):
    """The library calls beside local-words, whole call and (where there is one) kernel alone."""
    rows = load("histogram-peers-" + tag)
    ours = load("histogram-bench-" + tag)
    images = []
    for r in rows:
        if r["image"] not in images:
            images.append(r["image"])
    body = []
    me = best(ours)
    names = [me] + variants_in(rows)
    for v in names:
        src = ours if v == me else rows
        cells = ["**{}** (ours)".format(me) if v == me else "{} ({})".format(
            v.replace(";", ","), pick(rows, variant=v)["driver"])]
        for image in images:
            k = pick(src, variant=v, image=image, phase="kernels")
            h = whole(src, v, image) if v == me else pick(src, variant=v, image=image, phase="histogram")
            ref = whole(ours, me, image)
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
        "kernels' profiling events; *over ours*: the call's time over {} whole call in "
        "the same run (above 1x ours is the faster). The peers' random image has the same "
        "statistics as ours, not the same bytes (CUB's is the same bytes); each peer's counts are "
        "checked, and a call whose counts are wrong gets no time.{}\n".format(
            r0["width"], r0["height"], r0["reps"], me + ("'" if me.endswith("s") else "'s"),
            "" if r0["date"] == ours[0]["date"] else
            " Ours and the peers come from different runs here ({} and {}), so *over ours* is only "
            "a rough ratio.".format(ours[0]["date"], r0["date"])))


GENERATORS = {
    "histogram-goal": goal,
    "histogram-fixed": fixed,
    "histogram-sweep": sweep,
    "histogram-lanes": lanes,
    "histogram-peers": peers,
    "histogram-diff": kernel_diff,
    "histogram-variants": variants,
    "histogram-bench": bench,
    "histogram-breakdown": breakdown,
    "histogram-full": full,
}
