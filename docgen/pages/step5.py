# Step 5's tables: float4 against scalar tile loads, rows aligned to 128 bytes
# against rows at the padded image's width (bench/experiments.sh vector TAG),
# the final-exam report's experiment (its sections 3.1, 3.2 and 5.2).
from tables import load, table, fmt, caption, pick

VARIANTS = [("float4", "float4, aligned"), ("float4 aligned=off", "float4, off"),
            ("scalar", "scalar, aligned"), ("scalar aligned=off", "scalar, off")]


def round_up(value, multiple):
    return (value + multiple - 1) // multiple * multiple


def pitches(width, f, wg_x):
    """Floats per device row, as step5-vector/launcher.cpp sets them."""
    reach = round_up(width, wg_x) + f + 2
    return round_up(reach, 32), width + f - 1


def ms(value):
    """Times under 1 ms in microseconds, so that a 2 % step shows."""
    if value is None:
        return "-"
    return fmt(value * 1000) + " µs" if value < 1 else fmt(value) + " ms"


def ratio_range(values):
    lo, hi = min(values), max(values)
    return "{:.2f}x".format(lo) if "{:.2f}".format(lo) == "{:.2f}".format(hi) else \
        "{:.2f}x to {:.2f}x".format(lo, hi)


def vector(tag):
    rows = load("vector-" + tag)
    sizes = []
    for r in rows:
        s = (int(r["width"]), int(r["height"]))
        if s not in sizes:
            sizes.append(s)
    body, aligned_gain, aligned_scalar, vec_on, vec_off = [], [], [], [], []
    spread = max(float(r["median_ms"]) / float(r["min_ms"]) for r in rows)
    for w, h in sizes:
        t = {}
        for v, _ in VARIANTS:
            r = pick(rows, width=str(w), height=str(h), variant=v)
            t[v] = float(r["median_ms"]) if r else None
        f = int(rows[0]["filter_width"])
        wg_x = int(rows[0]["wg"].split("x")[0])
        on, off = pitches(w, f, wg_x)
        line = ["{}x{}".format(w, h), "{} / {}".format(on, off)]
        line += [ms(t[v]) for v, _ in VARIANTS]
        a = t["float4 aligned=off"] / t["float4"]
        b = t["scalar"] / t["float4"]
        aligned_gain.append(a)
        aligned_scalar.append(t["scalar aligned=off"] / t["scalar"])
        vec_on.append(b)
        vec_off.append(t["scalar aligned=off"] / t["float4 aligned=off"])
        line += ["{:.2f}".format(a), "{:.2f}".format(b)]
        body.append(line)
    header = ["image", "row pitch, aligned / off"] + [label for _, label in VARIANTS] + \
             ["aligned rows, speedup (float4)", "float4, speedup (aligned rows)"]
    summary = ("\nOver the four sizes, aligned rows against rows at the padded image's width: {} with "
               "float4 loads, {} with scalar loads; float4 against scalar loads: {} on aligned rows, {} on "
               "the others. The median of a configuration's launches is at most {:.2f}x its fastest launch. "
               "A speedup above 1: aligned rows, or float4 loads, are faster.\n").format(
        ratio_range(aligned_gain), ratio_range(aligned_scalar), ratio_range(vec_on), ratio_range(vec_off),
        spread)
    return table(header, body) + caption(rows, "bench/experiments.sh vector " + tag) + (
        "\nFilter {} (F = {}), work-group {}, median of {} launches; pitch in floats.\n".format(
            rows[0]["filter"], rows[0]["filter_width"], rows[0]["wg"], rows[0]["reps"])) + summary


GENERATORS = {"vector": vector}
