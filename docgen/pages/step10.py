"""Step 10's tables (docs/step10-fft-tiled.md): the cost model of a tile, the
tiles and work-groups measured, and step 10 beside steps 7 and 9 and cuFFT.

Inputs (docs/results/):
  fft-tiled-TAG.csv  bench/device-run.sh part fft-tiled (sweep --steps 10 --set tile=16,32,64,128
                     --wgs 64x1,128x1,256x1 over random filters on 8192x8192)
  cufft-TAG.csv      bench/device-run.sh part cufft (steps 7, 9 and 10 and CuPy's cuFFT in one run)
  steps567-TAG.csv   the device's copy bandwidth, as measured by the steps' runs there
"""
import math

from tables import load, table, fmt, caption
from pages import results

TILES = (16, 32, 64, 128)


def local_bytes(n):
    """step10-fft-tiled/tile.cpp's tile_local_bytes: N rows of N + N/8 float2, N/2 twiddles."""
    return 8 * n * (n + n // 8) + 8 * (n // 2)


def flops_per_output(n, f):
    """step10-fft-tiled/tile.cpp's tile_flops_per_output: two 2D transforms of
    n = N^2 points (5 n log2 n each) and the product (6 n), over 2 V^2 outputs."""
    if n < f:
        return None
    points, valid = n * n, n - f + 1
    return (2 * 5 * points * math.log2(points) + 6 * points) / (2 * valid * valid)


def tile_cost():
    """Flops per output for each tile and filter width, against the direct sum's 2 F^2."""
    widths = (3, 7, 11, 15, 21, 31, 45, 63)
    body = []
    for n in TILES:
        line = ["N = {} ({:.1f} KiB)".format(n, local_bytes(n) / 1024)]
        for f in widths:
            v = flops_per_output(n, f)
            line.append("-" if v is None else "{:.0f}".format(v))
        body.append(line)
    body.append(["direct sum, 2F²"] + [str(2 * f * f) for f in widths])
    return table(["flops per output, F ="] + [str(f) for f in widths], body) + (
        "\nThe model of `step10-fft-tiled/tile.cpp` (`tile_flops_per_output`); in brackets the local memory "
        "one work-group's tile takes. '-': the tile is narrower than the filter.\n")


def _tile(variant):
    for part in variant.split()[1:]:
        key, _, value = part.partition("=")
        if key == "tile":
            return int(value)
    return None


def fft_tiled(tag):
    """Per filter width and tile: the fastest work-group's time, and what the
    model's flops make of it."""
    rows = load("fft-tiled-" + tag)
    copy, _ = results.limits(load("steps567-" + tag))
    widths = sorted({int(r["filter_width"]) for r in rows})
    tiles = sorted({_tile(r["variant"]) for r in rows})
    body = []
    for f in widths:
        line = ["F = {}".format(f)]
        best = None
        for n in tiles:
            hit = [r for r in rows if int(r["filter_width"]) == f and _tile(r["variant"]) == n]
            if not hit:
                line.append("-")
                continue
            r = min(hit, key=lambda r: float(r["median_ms"]))
            ms = float(r["median_ms"])
            line.append("{} ms ({})".format(fmt(ms), r["wg"]))
            if best is None or ms < best[0]:
                best = (ms, n, r)
        ms, n, r = best
        outputs = int(r["width"]) * int(r["height"])
        _, nbytes = results.work(r)
        line += ["N = {}".format(n), fmt(flops_per_output(n, f) * outputs / (ms * 1e6)),
                 fmt(100 * nbytes / (ms * 1e6) / copy)]
        body.append(line)
    return table(["8192x8192"] + ["tile {}".format(n) for n in tiles] +
                 ["fastest", "its GFLOP/s (model)", "% of copy bandwidth"], body) + caption(
        rows, "bench/device-run.sh part fft-tiled") + (
        "\nRandom filters; each cell the fastest of the work-groups 64, 128 and 256 (in brackets); '-': the "
        "tile is narrower than the filter or does not fit the device's local memory. GFLOP/s: the model's "
        "flops per output (above) times the outputs, over the time; % of copy bandwidth: one read of the "
        "padded image and one write of the output at the copy rate measured there.\n")


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
