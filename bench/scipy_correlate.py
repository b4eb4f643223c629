#!/usr/bin/env python3
"""scipy.ndimage.correlate on the CPU, the Python programmer's peer of the
steps: a random W x H float32 image, box filters of the given widths, zero
border (mode="constant"), output the same size, anchor at F//2 (odd F only);
median of N calls after one warm-up. SciPy's correlate is single-threaded.

    python3 bench/scipy_correlate.py --size 2048x2048 --filters 3,5,7,15,31 --no-header >> perf.csv

Prints CSV rows in the project's shared columns (Debian: python3-scipy).
"""
import argparse
import datetime
import statistics
import sys
import time

import numpy as np
import scipy
import scipy.ndimage as ndimage

COLUMNS = ("device,driver,date,step,variant,width,height,filter,filter_width,border,wg,reps,"
           "median_ms,min_ms,mean_ms,gflops,gbps,pct_limit,limit,speedup_serial,speedup_prev,"
           "max_abs_err,max_rel_err").split(",")


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="2048x2048")
    p.add_argument("--filters", default="3,5,7,15,31")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--no-header", action="store_true")
    a = p.parse_args()
    w, h = (int(v) for v in a.size.lower().split("x"))
    image = np.random.default_rng(1).random((h, w), dtype=np.float32)
    if not a.no_header:
        print(",".join(COLUMNS))
    for fw in (int(v) for v in a.filters.split(",")):
        if fw % 2 == 0:
            sys.exit("scipy_correlate.py: odd filter widths only (anchor F//2)")
        weight = np.full((fw, fw), 1.0 / (fw * fw), dtype=np.float32)
        out = np.empty_like(image)
        run = lambda: ndimage.correlate(image, weight, output=out, mode="constant", cval=0.0)
        run()
        times = []
        for _ in range(a.reps):
            t0 = time.perf_counter()
            run()
            times.append((time.perf_counter() - t0) * 1e3)
        n = 128  # a corner against float64
        ref = ndimage.correlate(image[:n, :n].astype(np.float64), weight.astype(np.float64), mode="constant")
        k = n - fw // 2
        err = np.abs(out[:k, :k] - ref[:k, :k])
        med = statistics.median(times)
        flops = 2.0 * fw * fw * w * h
        nbytes = 4.0 * ((w + fw - 1) * (h + fw - 1) + w * h)
        row = {"device": cpu_name(), "driver": "SciPy " + scipy.__version__,
               "date": datetime.date.today().isoformat(), "step": "scipy.correlate",
               "variant": "threads=1", "width": w, "height": h, "filter": "box:%d" % fw,
               "filter_width": fw, "border": "zero", "reps": a.reps, "median_ms": "%.6g" % med,
               "min_ms": "%.6g" % min(times), "mean_ms": "%.6g" % statistics.mean(times),
               "gflops": "%.6g" % (flops / med / 1e6), "gbps": "%.6g" % (nbytes / med / 1e6),
               "max_abs_err": "%.3g" % err.max(), "max_rel_err": "%.3g" % (err / np.maximum(np.abs(ref[:k, :k]), 1e-30)).max()}
        print(",".join(str(row.get(c, "")) for c in COLUMNS))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
