#!/usr/bin/env python3
"""cupyx.scipy.ndimage.correlate on the same problem as the steps, for the
results tables: a random W x H float32 image, a random F x F filter, zero
border (mode="constant"), output the same size, anchor at F//2 (odd F only),
median of N timed calls with CUDA events after warm-up calls (the first
compiles CuPy's kernel for that filter shape).

    python3 bench/cupy_correlate.py --size 8192x8192 --filters 3,5,7,15,31 > cupy.csv

Prints CSV with the project's shared columns, one row per filter; the
error columns compare a 256x256 corner with a float64 correlation of it.
"""
import sys

import cupy
import cupyx.scipy.ndimage as ndimage

from peer_csv import arguments, cupy_corner_errors, cupy_times, print_header, print_row


def main():
    a, w, h = arguments(__doc__, "3,5,7,15,31")
    rng = cupy.random.default_rng(a.seed)
    image = rng.random((h, w), dtype=cupy.float32)
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    driver = "CuPy %s, CUDA runtime %d" % (cupy.__version__, cupy.cuda.runtime.runtimeGetVersion())
    print_header()
    for fw in (int(v) for v in a.filters.split(",")):
        if fw % 2 == 0:
            sys.exit("cupy_correlate.py: odd filter widths only (anchor F//2)")
        weight = rng.random((fw, fw), dtype=cupy.float32) * 2 - 1
        out = cupy.empty_like(image)
        times = cupy_times(lambda: ndimage.correlate(image, weight, output=out, mode="constant", cval=0.0),
                           a.reps)
        nbytes = 4.0 * ((w + fw - 1) * (h + fw - 1) + w * h)  # as the steps count: padded in, out
        print_row(name, driver, "cupyx.correlate", "constant", w, h, fw, times, nbytes,
                  *cupy_corner_errors(image, weight, out))


if __name__ == "__main__":
    main()
