#!/usr/bin/env python3
"""The library calls a programmer would use instead of the histogram lesson's
kernels, on an image of the same size and kind: RGB, 8 bits a channel, 256
bins a channel (768 counts), each checked against NumPy's count of the same
bytes, timed as the lesson times its whole call: from the bytes on the
device to the 768 counts on the host (median of N calls after one warm-up).

    python3 bench/histogram_peers.py --peers torch,cupy > peers-gpu.csv    # CUDA GPU
    python3 bench/histogram_peers.py --peers numpy,opencv > peers-cpu.csv  # CPU

Images: noise:WxH (uniform random bytes from NumPy's generator, seed 1: the
same statistics as the lesson's noise: image, not the same bytes) and
solid:WxH (every pixel 808080). Peers: torch (torch.bincount and
torch.histc), cupy (cupy.bincount and cupy.histogram), numpy (numpy.bincount),
opencv (cv2.calcHist, one call per channel, with 1 thread and with one per
core). Each counts one array of channel * 256 + value, the one-call form of
three histograms; the conversion to that array is part of the call.
Prints CSV rows in the lesson's columns (phase "histogram"); a peer whose
counts are wrong is named on stderr and gets no row.
"""
import argparse
import datetime
import os
import statistics
import sys
import time

import numpy as np

COLUMNS = ("device,driver,date,step,variant,phase,image,width,height,chunk,wg,reps,first_ms,"
           "median_ms,min_ms,mean_ms,gbps,copy_gbps,pct_copy,speedup_serial").split(",")


def make_image(spec):
    kind, size = spec.split(":", 1)
    w, h = (int(v) for v in size.lower().split("x"))
    if kind == "noise":
        return np.random.default_rng(1).integers(0, 256, size=(h, w, 3), dtype=np.uint8)
    if kind == "solid":
        return np.full((h, w, 3), 0x80, dtype=np.uint8)
    sys.exit("histogram_peers.py: --image noise:WxH or solid:WxH, not " + spec)


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU"


def time_calls(call, reps, sync=lambda: None):
    first = None
    times = []
    for i in range(reps + 1):
        sync()
        t0 = time.perf_counter()
        counts = call()
        t1 = time.perf_counter()
        if i == 0:
            first = (t1 - t0) * 1e3
            result = counts
        else:
            times.append((t1 - t0) * 1e3)
    return result, first, times


def peers_for(name, image):
    """(device, driver, [(variant, call, sync)]) for one peer; call returns 768 counts on the host."""
    if name == "numpy":
        offs = np.arange(3, dtype=np.int32) * 256
        call = lambda: np.bincount((image.astype(np.int32) + offs).ravel(), minlength=768)
        return cpu_name(), "NumPy " + np.__version__, [("numpy.bincount", call, lambda: None)]
    if name == "opencv":
        import cv2

        def calc():
            return np.concatenate([cv2.calcHist([image], [c], None, [256], [0, 256]).ravel()
                                   for c in range(3)]).astype(np.int64)
        out = []
        for threads in (1, os.cpu_count() or 1):
            def call(t=threads):
                cv2.setNumThreads(t)
                return calc()
            out.append(("cv2.calcHist threads=%d" % threads, call, lambda: None))
        return cpu_name(), "OpenCV " + cv2.__version__, out
    if name == "torch":
        import torch
        x = torch.from_numpy(image).cuda()
        offs = torch.arange(3, device="cuda", dtype=torch.int32) * 256
        fofs = offs.float()
        calls = [
            ("torch.bincount", lambda: torch.bincount((x.int() + offs).flatten(), minlength=768).cpu().numpy()),
            ("torch.histc", lambda: torch.histc((x.float() + fofs).flatten(), bins=768, min=-0.5,
                                                max=767.5).long().cpu().numpy()),
        ]
        return (torch.cuda.get_device_name(0), "torch " + torch.__version__,
                [(v, c, torch.cuda.synchronize) for v, c in calls])
    if name == "cupy":
        import cupy
        x = cupy.asarray(image)
        offs = cupy.arange(3, dtype=cupy.int32) * 256
        calls = [
            ("cupy.bincount", lambda: cupy.bincount((x.astype(cupy.int32) + offs).ravel(), minlength=768).get()),
            ("cupy.histogram", lambda: cupy.histogram((x.astype(cupy.int32) + offs).ravel(), bins=768,
                                                      range=(0, 768))[0].get()),
        ]
        sync = cupy.cuda.runtime.deviceSynchronize
        props = cupy.cuda.runtime.getDeviceProperties(0)
        return props["name"].decode(), "CuPy " + cupy.__version__, [(v, c, sync) for v, c in calls]
    sys.exit("histogram_peers.py: unknown peer " + name)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--peers", default="numpy,opencv")
    p.add_argument("--image", action="append", help="noise:WxH or solid:WxH (repeatable)")
    p.add_argument("--reps", type=int, default=20)
    a = p.parse_args()
    print(",".join(COLUMNS))
    for spec in a.image or ["noise:7728x4354", "solid:7728x4354"]:
        image = make_image(spec)
        h, w, _ = image.shape
        expected = np.bincount((image.astype(np.int64) + np.arange(3) * 256).ravel(), minlength=768)
        for peer in a.peers.split(","):
            device, driver, calls = peers_for(peer, image)
            for variant, call, sync in calls:
                counts, first, times = time_calls(call, a.reps, sync)
                if not np.array_equal(np.asarray(counts).astype(np.int64), expected):
                    # Reported and left out of the CSV: torch.histc counts in
                    # float32, exact only up to 2^24 per bin.
                    wrong = int(np.abs(np.asarray(counts).astype(np.int64) - expected).max())
                    print("histogram_peers.py: %s on %s: WRONG counts (off by up to %d); no row"
                          % (variant, spec, wrong), file=sys.stderr)
                    continue
                print("histogram_peers.py: %s on %s: counts match" % (variant, spec), file=sys.stderr)
                med = statistics.median(times)
                row = {"device": device, "driver": driver, "date": datetime.date.today().isoformat(),
                       "step": "peer", "variant": variant, "phase": "histogram", "image": spec,
                       "width": w, "height": h, "reps": a.reps, "first_ms": "%.6g" % first,
                       "median_ms": "%.6g" % med, "min_ms": "%.6g" % min(times),
                       "mean_ms": "%.6g" % statistics.mean(times),
                       "gbps": "%.6g" % (3.0 * w * h / (med * 1e6))}
                print(",".join('"%s"' % row[c] if "," in str(row.get(c, "")) else str(row.get(c, ""))
                               for c in COLUMNS))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
