#!/usr/bin/env python3
"""Correlation through cuFFT (CuPy) on the same problem as step 9, for its
lesson: a random W x H float32 image, a random F x F filter, zero border,
output the same size, anchor at F//2 (odd F only), median of N timed calls
with CUDA events after warm-up calls (the first ones plan the transforms;
CuPy keeps the plans in its cache).

Three forms, each a row:
  fftconvolve   cupyx.scipy.signal.fftconvolve(image, flipped filter,
                mode="same"): the one call a user would write; it transforms
                the filter on every call.
  rfft2         cuFFT at its best, step 9's own recipe: the filter's spectrum
                computed once, outside the timing; each call pads the image to
                cuFFT's fastest transform size for it (every size of factors 2,
                3, 5 and 7 up to 12 % larger, timed first),
                rfft2, multiplies the spectra in place, irfft2 (overwrite_x, so
                CuPy does not copy its input first), and crops.
  transforms only  rfft2 and irfft2 of the padded image and nothing else:
                the floor for any correlation through cuFFT at that size.

    python3 bench/cupy_fftconvolve.py --size 8192x8192 --filters 3,7,15,31,63 > cufft.csv

Prints CSV with the project's shared columns, one row per filter and form;
the error columns compare a 256x256 corner with a float64 direct
correlation of it (empty for the transforms alone).
"""
import statistics
import sys

import cupy
import cupyx.scipy.fft as cufft
import cupyx.scipy.signal as signal

from peer_csv import arguments, cupy_corner_errors, cupy_times, print_header, print_row


def smooth(n):
    for p in (2, 3, 5, 7):
        while n % p == 0:
            n //= p
    return n == 1


SIZES = {}


def fastest_size(rows, cols):
    """cuFFT's fastest square transform for at least rows x cols: every
    size whose factors are 2, 3, 5 and 7 up to 12 % larger on each axis, each
    timed as rfft2 + irfft2 (five calls after three), the fastest kept."""
    if (rows, cols) in SIZES:
        return SIZES[(rows, cols)]
    best = None
    for n in sorted({r for r in range(max(rows, cols), int(max(rows, cols) * 1.12) + 1) if smooth(r)}):
        x = cupy.zeros((n, n), dtype=cupy.float32)
        t = statistics.median(cupy_times(lambda: cufft.irfft2(cufft.rfft2(x), s=(n, n), overwrite_x=True), 5))
        if best is None or t < best[0]:
            best = (t, n)
        del x
        cupy.fft.config.get_plan_cache().clear()
    SIZES[(rows, cols)] = (best[1], best[1])
    return SIZES[(rows, cols)]


def main():
    a, w, h = arguments(__doc__, "3,7,15,31,63")
    rng = cupy.random.default_rng(a.seed)
    image = rng.random((h, w), dtype=cupy.float32)
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    driver = "CuPy %s, cuFFT %d" % (cupy.__version__, cupy.cuda.cufft.getVersion())
    print_header()
    for fw in (int(v) for v in a.filters.split(",")):
        if fw % 2 == 0:
            sys.exit("cupy_fftconvolve.py: odd filter widths only (anchor F//2)")
        weight = rng.random((fw, fw), dtype=cupy.float32) * 2 - 1
        flipped = cupy.ascontiguousarray(weight[::-1, ::-1])
        r = fw // 2
        P, Q = fastest_size(h + fw - 1, w + fw - 1)
        # The filter's spectrum, once: flipped (a convolution computes the
        # correlation), its centre moved to (0, 0) so the output needs no shift.
        kernel = cupy.zeros((P, Q), dtype=cupy.float32)
        kernel[:fw, :fw] = flipped
        kernel = cupy.roll(kernel, (-r, -r), axis=(0, 1))
        spectrum = cufft.rfft2(kernel)
        padded = cupy.zeros((P, Q), dtype=cupy.float32)  # the zero border stays zero
        out = cupy.empty_like(image)

        def by_rfft2():
            padded[:h, :w] = image
            spectra = cufft.rfft2(padded)
            cupy.multiply(spectra, spectrum, out=spectra)  # in place: no third array
            # overwrite_x: cuFFT's inverse may reuse its input, so CuPy need not copy it first
            full = cufft.irfft2(spectra, s=(P, Q), overwrite_x=True)
            out[...] = full[:h, :w]

        def transforms_only():  # the two transforms alone: no pad, product or crop
            cufft.irfft2(cufft.rfft2(padded), s=(P, Q), overwrite_x=True)

        forms = {"fftconvolve": lambda: signal.fftconvolve(image, flipped, mode="same"),
                 "rfft2 P=%dxQ=%d" % (P, Q): by_rfft2,
                 "transforms only P=%dxQ=%d" % (P, Q): transforms_only}
        nbytes = 4.0 * ((w + fw - 1) * (h + fw - 1) + w * h)  # as the steps count: padded in, out
        for variant, run in forms.items():
            times = cupy_times(run, a.reps)
            if variant.startswith("transforms only"):  # computes no correlation: no error to give
                errors = ("", "")
            else:
                result = run() if variant == "fftconvolve" else (run(), out)[1]
                errors = cupy_corner_errors(image, weight, result)
            print_row(name, driver, "cupy.fft", variant, w, h, fw, times, nbytes, *errors)
        del kernel, spectrum, padded, out
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
