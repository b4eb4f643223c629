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
import argparse
import datetime
import statistics
import sys

import cupy
import cupyx.scipy.ndimage as ndimage

COLUMNS = ("device,driver,date,step,variant,width,height,filter,filter_width,border,wg,reps,"
           "median_ms,min_ms,mean_ms,gflops,gbps,pct_limit,limit,speedup_serial,speedup_prev,"
           "max_abs_err,max_rel_err").split(",")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="8192x8192")
    p.add_argument("--filters", default="3,5,7,15,31")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    w, h = (int(v) for v in a.size.lower().split("x"))
    rng = cupy.random.default_rng(a.seed)
    image = rng.random((h, w), dtype=cupy.float32)
    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode()
    driver = "CuPy %s, CUDA runtime %d" % (cupy.__version__, cupy.cuda.runtime.runtimeGetVersion())
    print(",".join(COLUMNS))
    for fw in (int(v) for v in a.filters.split(",")):
        if fw % 2 == 0:
            sys.exit("cupy_correlate.py: odd filter widths only (anchor F//2)")
        weight = rng.random((fw, fw), dtype=cupy.float32) * 2 - 1
        out = cupy.empty_like(image)
        run = lambda: ndimage.correlate(image, weight, output=out, mode="constant", cval=0.0)
        for _ in range(3):
            run()
        cupy.cuda.runtime.deviceSynchronize()
        times = []
        for _ in range(a.reps):
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, end))
        # A float64 correlation of the corner; only outputs whose window lies
        # inside the corner or on the zero border are compared.
        n = 256
        crop = image[:n, :n].astype(cupy.float64)
        ref = ndimage.correlate(crop, weight.astype(cupy.float64), mode="constant", cval=0.0)
        mag = ndimage.correlate(cupy.abs(crop), cupy.abs(weight.astype(cupy.float64)), mode="constant")
        k = n - fw // 2
        err = cupy.abs(out[:k, :k].astype(cupy.float64) - ref[:k, :k])
        rel = err / cupy.maximum(mag[:k, :k], 1e-30)
        med = statistics.median(times)
        flops = 2.0 * fw * fw * w * h
        nbytes = 4.0 * ((w + fw - 1) * (h + fw - 1) + w * h)  # as the steps count: padded in, out
        row = {"device": name, "driver": driver, "date": datetime.date.today().isoformat(),
               "step": "cupyx.correlate", "variant": "constant", "width": w, "height": h,
               "filter": "random:%d" % fw, "filter_width": fw, "border": "zero", "wg": "",
               "reps": a.reps, "median_ms": "%.6g" % med, "min_ms": "%.6g" % min(times),
               "mean_ms": "%.6g" % statistics.mean(times), "gflops": "%.6g" % (flops / med / 1e6),
               "gbps": "%.6g" % (nbytes / med / 1e6), "max_abs_err": "%.3g" % float(err.max()),
               "max_rel_err": "%.3g" % float(rel.max())}
        print(",".join('"%s"' % row[c] if "," in str(row.get(c, "")) else str(row.get(c, ""))
                       for c in COLUMNS))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
