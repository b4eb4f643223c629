#!/usr/bin/env python3
"""torch.nn.functional.conv2d on the same problem as the steps, for the
results tables: a random W x H float32 image, an F x F filter, zero border,
output the same size (odd F only), median of N timed calls with CUDA events.

    python3 bench/torch_conv2d.py --size 8192x8192 --filters 3,5,7,15,31 > torch.csv

Prints CSV with the project's shared columns, two rows per filter, both in
plain float32 (TF32 off) with torch.backends.cudnn.benchmark on, so cuDNN
times its algorithms once and keeps the fastest: "padding" lets conv2d pad
(padding=F//2), "prepadded" gives it an image padded beforehand (as the
steps get it) and no padding, which cuDNN runs several times faster.
"""
import argparse
import datetime
import statistics
import sys

import torch
import torch.nn.functional as F

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
    torch.manual_seed(a.seed)
    dev = torch.device("cuda")
    image = torch.rand(1, 1, h, w, device=dev, dtype=torch.float32)
    name = torch.cuda.get_device_name(0)
    driver = "torch " + torch.__version__ + ", cuDNN " + str(torch.backends.cudnn.version())
    print(",".join(COLUMNS))
    for fw in (int(v) for v in a.filters.split(",")):
        if fw % 2 == 0:
            sys.exit("torch_conv2d.py: odd filter widths only (symmetric padding)")
        weight = torch.rand(1, 1, fw, fw, device=dev, dtype=torch.float32) * 2 - 1
        # Exact answer on a crop, in float64, to report each mode's error.
        crop = image[:, :, :256, :256].double()
        ref = F.conv2d(crop, weight.double(), padding=fw // 2)
        mag = F.conv2d(crop.abs(), weight.double().abs(), padding=fw // 2)
        torch.backends.cudnn.benchmark = True
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
        padded = F.pad(image, (fw // 2,) * 4)
        for mode in ("padding", "prepadded"):
            if mode == "padding":
                run = lambda: F.conv2d(image, weight, padding=fw // 2)
            else:
                run = lambda: F.conv2d(padded, weight)
            for _ in range(3):  # the first call also runs cuDNN's benchmark
                run()
            torch.cuda.synchronize()
            times = []
            for _ in range(a.reps):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                run()
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end))
            assert run().shape == image.shape
            out = F.conv2d(crop.float(), weight, padding=fw // 2).double()
            err = (out - ref).abs()
            med = statistics.median(times)
            flops = 2.0 * fw * fw * w * h
            nbytes = 4.0 * (w * h * 2)
            row = {"device": name, "driver": driver, "date": datetime.date.today().isoformat(),
                   "step": "torch.conv2d", "variant": mode, "width": w, "height": h,
                   "filter": "random:%d" % fw, "filter_width": fw, "border": "zero", "wg": "",
                   "reps": a.reps, "median_ms": "%.6g" % med, "min_ms": "%.6g" % min(times),
                   "mean_ms": "%.6g" % statistics.mean(times), "gflops": "%.6g" % (flops / med / 1e6),
                   "gbps": "%.6g" % (nbytes / med / 1e6), "max_abs_err": "%.3g" % err.max().item(),
                   "max_rel_err": "%.3g" % (err / mag.clamp_min(1e-30)).max().item()}
            print(",".join('"%s"' % row[c] if "," in str(row.get(c, "")) else str(row.get(c, ""))
                           for c in COLUMNS))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
