"""Step 10's tables (docs/step10-fft-tiled.md): the cost model of a tile, the
tiles and work-groups measured, and step 10 beside steps 7 and 9 and cuFFT.

Inputs (docs/results/):
  fft-tiled-TAG.csv  bench/device-run.sh part fft-tiled (sweep --steps 10 over random filters on
                     8192x8192: tiles 16 to 64 local and 128 split at work-groups 64 to 512,
                     tiles 32 and 64 in registers at N work-items, one per line: --wgs 32x1,
                     64x1, the layout's default when fft-tiled-h100.csv was measured; each
                     tile at least F wide). Rows name tile and layout ("default tile=32
                     layout=registers"); a row without a layout ran the local one.
  cufft-TAG.csv      bench/device-run.sh part cufft (steps 7, 9 and 10 and CuPy's cuFFT in one run)
  steps567-TAG.csv   the device's copy bandwidth, as measured by the steps' runs there
  fft-tiled-model.csv  the default rule's cost model (flops per output: candidates/tuning.cpp;
                     local bytes: tile.cpp), written and checked by the harness test that names
                     it (tests/tiled_fft.cpp)
"""

from tables import load, table, fmt, caption
from pages import results

def model_flops(n, f):
    """tile_flops_per_output for tile n and width f, from fft-tiled-model.csv."""
    for r in load("fft-tiled-model"):
        if int(r["tile"]) == n and int(r["filter_width"]) == f and r["flops_per_output"]:
            return float(r["flops_per_output"])
    raise KeyError("fft-tiled-model.csv has no tile {} at F = {}: add F to the harness test "
                   "that writes it (tests/tiled_fft.cpp)".format(n, f))


def tile_cost():
    """Flops per output for each tile and filter width, against the direct sum's 2 F^2:
    the model as docs/results/fft-tiled-model.csv holds it (a harness test
    checks that the file is what tile_flops_per_output computes)."""
    rows = load("fft-tiled-model")
    widths = sorted({int(r["filter_width"]) for r in rows})
    body = []
    local = {int(r["tile"]): int(r["local_bytes"]) for r in rows}
    for n in sorted(local):
        mine = {int(r["filter_width"]): r for r in rows if int(r["tile"]) == n}
        kib = "{:.1f} KiB".format(local[n] / 1024)
        if n // 2 in local and n >= 32:
            kib += ", split {:.1f}".format(local[n // 2] / 1024)
        line = ["N = {} ({})".format(n, kib)]
        for f in widths:
            v = mine[f]["flops_per_output"]
            line.append("-" if v == "" else "{:.0f}".format(float(v)))
        body.append(line)
    body.append(["direct sum, 2F²"] + [str(2 * f * f) for f in widths])
    return table(["flops per output, F ="] + [str(f) for f in widths], body) + (
        "\nThe model of `step10-fft-tiled/candidates/tuning.cpp` (`tile_flops_per_output`), from "
        "`docs/results/fft-tiled-model.csv`; in brackets the local memory one work-group's tile "
        "takes, whole and split in four (the split layout, below). '-': the tile is narrower than "
        "the filter.\n")


def _setting(variant, name):
    for part in variant.split()[1:]:
        key, _, value = part.partition("=")
        if key == name:
            return value
    return None


def _tile(variant):
    value = _setting(variant, "tile")
    return int(value) if value else None


def _column(variant):
    """(layout order, tile, layout) of a row: the local layout's tiles first, then the
    split one, then the registers ones."""
    layout = _setting(variant, "layout") or "local"
    return ({"local": 0, "split": 1, "registers": 2}[layout], _tile(variant), layout)


def fft_tiled(tag):
    """Per filter width and tile: the fastest work-group's time, and what the
    model's flops make of it."""
    rows = load("fft-tiled-" + tag)
    copy, _ = results.limits(load("steps567-" + tag))
    widths = sorted({int(r["filter_width"]) for r in rows})
    columns = sorted({_column(r["variant"]) for r in rows})
    body = []
    for f in widths:
        line = ["F = {}".format(f)]
        best = None
        for column in columns:
            hit = [r for r in rows if int(r["filter_width"]) == f and _column(r["variant"]) == column]
            if not hit:
                line.append("-")
                continue
            r = min(hit, key=lambda r: float(r["median_ms"]))
            ms = float(r["median_ms"])
            line.append("{} ms ({})".format(fmt(ms), r["wg"]))
            if best is None or ms < best[0]:
                best = (ms, column, r)
        ms, (_, n, layout), r = best
        outputs = int(r["width"]) * int(r["height"])
        _, nbytes = results.work(r)
        line += ["N = {} {}".format(n, layout), fmt(model_flops(n, f) * outputs / (ms * 1e6)),
                 fmt(100 * nbytes / (ms * 1e6) / copy)]
        body.append(line)
    return table(["8192x8192"] + ["{} {}".format(layout, n) for _, n, layout in columns] +
                 ["fastest", "its GFLOP/s (model)", "% of copy bandwidth"], body) + caption(
        rows, "bench/device-run.sh part fft-tiled") + (
        "\nRandom filters; columns: the layout and the tile N. Local and split: the fastest work-group "
        "of 64 to 512 (in brackets); registers: N work-items; '-': the tile is narrower than the filter. "
        "GFLOP/s: the model's flops over the time; % of copy bandwidth: one read of the padded image and "
        "one write of the output at the copy rate measured there.\n")


def fft_tiled_peers(tag):
    """Step 10 beside the tuned direct sum, step 9 and cuFFT, in one run."""
    rows = load("cufft-" + tag)
    copy, _ = results.limits(load("steps567-" + tag))
    widths = sorted({int(r["filter_width"]) for r in rows})

    def ms(step, f, variant=None):
        for r in rows:
            if r["step"] == step and int(r["filter_width"]) == f and (variant is None or r["variant"] == variant):
                return float(r["median_ms"]), r
        return None, None

    body = []
    for f in widths:
        t7, _ = ms("step7-tuned", f)
        t9, _ = ms("step9-fft", f)
        t10, r10 = ms("step10-fft-tiled", f)
        cu, _ = ms("cupy.fft", f, "fftconvolve")
        _, nbytes = results.work(r10)
        body.append(["F = {}".format(f), fmt(t7), fmt(t9), fmt(cu), fmt(t10), fmt(t7 / t10), fmt(t9 / t10),
                     fmt(100 * nbytes / (t10 * 1e6) / copy)])
    peer = next(r for r in rows if r["step"] == "cupy.fft")
    return table(["median ms, 8192x8192", "step 7 (tuned)", "step 9 (VkFFT)", "cuFFT (CuPy fftconvolve)",
                  "step 10", "step 10 x step 7", "step 10 x step 9", "step 10, % of copy"], body) + caption(
        rows, "bench/device-run.sh part cufft") + (
        "\nRandom filters; step 10 with `--tile auto`, step 9 with its product inside VkFFT, step 7 with "
        "its stored winners where the store has one; cuFFT: {}. x: how many times faster step 10 is.\n".format(
            peer["driver"]))


GENERATORS = {"tile-cost": tile_cost, "fft-tiled": fft_tiled, "fft-tiled-peers": fft_tiled_peers}
