#!/usr/bin/env python3
"""Copies of step 10's fused kernel (step10-fft-tiled/candidates/fused.cl,
its kernel renamed convolve so that --kernel runs it) with parts taken
out, for bench/device-run.sh part fft-tiled-floor: how much of the
64-point tile's time its memory traffic takes, and its two reads each.

    sed 's/void convolve_fused(/void convolve(/' step10-fft-tiled/candidates/fused.cl > fused.cl
    python3 bench/fft_tiled_probes.py fused.cl OUTDIR

writes OUTDIR/memory.cl (no transform passes between the tiles' load and
store: the load and the first row pass, then the last row pass and the
store), OUTDIR/no-spectrum.cl (the product with the filter's spectrum
replaced by a product with 0.5, so the spectrum is never read) and
OUTDIR/no-image.cl (the tiles loaded as zeros, the image never read). None
of these three computes a correlation; run them with --kernel and without
--verify. OUTDIR/every-row.cl is the kernel as it was before its inverse
row passes skipped the rows the output never reads: a correlation still
(it passes --verify), with more work. Each
cut is found by the text around it and refused, with the reason, if
candidates/fused.cl has changed there."""
import os
import sys


def cut(text, old, new, what):
    if text.count(old) != 1:
        sys.exit("fft_tiled_probes.py: {}: the text to change is not in the kernel once; "
                 "candidates/fused.cl has changed, update this script".format(what))
    return text.replace(old, new)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: fft_tiled_probes.py FUSED_CL OUTDIR (candidates/fused.cl, its kernel renamed convolve)")
    try:
        with open(sys.argv[1]) as f:
            src = f.read()
    except OSError as e:
        sys.exit("fft_tiled_probes.py: {}: cannot read it: {}".format(sys.argv[1], e.strerror))
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    first = "  // 2. The other forward row passes, and the column passes but the last.\n"
    last = "  // 5. The last inverse row pass, and the write.\n"
    if src.count(first) != 1 or src.count(last) != 1 or src.index(first) > src.index(last):
        sys.exit("fft_tiled_probes.py: memory: the kernel's steps 2 and 5 are not where expected; "
                 "candidates/fused.cl has changed, update this script")
    probes = {
        "memory": src[:src.index(first)] + src[src.index(last):],
        "no-spectrum": cut(src, "v[m] = mul(v[m], filter_spectrum[(base + m * s) * N + line]);",
                           "v[m] = v[m] * 0.5f;", "no-spectrum"),
        "no-image": cut(src, "      if (gy < in_height) {\n        if (ga < in_width)",
                        "      if (gy < 0) {\n        if (ga < in_width)", "no-image"),
        "every-row": cut(cut(src, "pass(t, w, 1, p, 1, valid);  // rows y < V only\n", "pass(t, w, 1, p, 1, N);\n",
                             "every-row"),
                         "ox, oy, valid, 1, 0, 0, valid);", "ox, oy, valid, 1, 0, 0, N);", "every-row"),
    }
    what = {"every-row": "a correlation, every row of the inverse transform done"}
    for name, text in probes.items():
        with open(os.path.join(out, name + ".cl"), "w") as f:
            f.write("// A probe made by bench/fft_tiled_probes.py from step10-fft-tiled/candidates/fused.cl\n"
                    "// (" + name + "): " + what.get(name, "not a correlation") + ".\n" + text)


if __name__ == "__main__":
    main()
