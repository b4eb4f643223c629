"""What the GPU peer scripts (cupy_correlate.py, cupy_fftconvolve.py,
torch_conv2d.py) share: their command line, and one CSV row per timed call
in the project's shared columns."""
import argparse
import datetime
import statistics
import sys

COLUMNS = ("device,driver,date,step,variant,width,height,filter,filter_width,border,wg,reps,"
           "median_ms,min_ms,mean_ms,gflops,gbps,pct_limit,limit,speedup_serial,speedup_prev,"
           "max_abs_err,max_rel_err").split(",")


def arguments(doc, filters):
    """--size WxH, --filters F,F,... (odd widths), --reps, --seed; returns
    the parsed options, the width and the height."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--size", default="8192x8192")
    p.add_argument("--filters", default=filters)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    w, h = (int(v) for v in a.size.lower().split("x"))
    return a, w, h


def print_header():
    print(",".join(COLUMNS))


def print_row(device, driver, step, variant, w, h, fw, times, nbytes, max_abs_err, max_rel_err):
    """One row: a call's times in ms (median, fastest, mean), its GFLOP/s as
    an F x F direct sum counts them and its GB/s for nbytes moved."""
    med = statistics.median(times)
    row = {"device": device, "driver": driver, "date": datetime.date.today().isoformat(),
           "step": step, "variant": variant, "width": w, "height": h,
           "filter": "random:%d" % fw, "filter_width": fw, "border": "zero", "wg": "",
           "reps": len(times), "median_ms": "%.6g" % med, "min_ms": "%.6g" % min(times),
           "mean_ms": "%.6g" % statistics.mean(times),
           "gflops": "%.6g" % (2.0 * fw * fw * w * h / med / 1e6),
           "gbps": "%.6g" % (nbytes / med / 1e6), "max_abs_err": max_abs_err, "max_rel_err": max_rel_err}
    print(",".join('"%s"' % row[c] if "," in str(row.get(c, "")) else str(row.get(c, "")) for c in COLUMNS))
    sys.stdout.flush()


def cupy_times(run, reps):
    """run() timed with CUDA events, reps times after three warm-up calls."""
    import cupy
    for _ in range(3):
        run()
    cupy.cuda.runtime.deviceSynchronize()
    times = []
    for _ in range(reps):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end))
    return times


def cupy_corner_errors(image, weight, result):
    """Max absolute and relative error ("%.3g") of a correlation's 256x256
    corner against a float64 one; only outputs whose window lies inside the
    corner or on the zero border are compared."""
    import cupy
    import cupyx.scipy.ndimage as ndimage
    n, fw = 256, weight.shape[0]
    crop = image[:n, :n].astype(cupy.float64)
    ref = ndimage.correlate(crop, weight.astype(cupy.float64), mode="constant", cval=0.0)
    mag = ndimage.correlate(cupy.abs(crop), cupy.abs(weight.astype(cupy.float64)), mode="constant")
    k = n - fw // 2
    err = cupy.abs(result[:k, :k].astype(cupy.float64) - ref[:k, :k])
    rel = err / cupy.maximum(mag[:k, :k], 1e-30)
    return "%.3g" % float(err.max()), "%.3g" % float(rel.max())
