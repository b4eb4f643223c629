#!/usr/bin/env bash
# bench/fft_tiled_probes.py (bench/device-run.sh part fft-tiled-floor) still
# finds its cuts in step 10's fused kernel (candidates/fused.cl, its kernel
# renamed convolve so that --kernel runs it: it takes the lesson's
# arguments), each probe builds and runs, and a kernel changed where a cut
# was is refused with the probe's name.
#   tests/fft_tiled_probes.sh BIN_DIR SOURCE_DIR
set -euo pipefail
bin="$1" src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sed 's/void convolve_fused(/void convolve(/' "$src/step10-fft-tiled/candidates/fused.cl" > "$tmp/fused.cl"
grep -q "void convolve(" "$tmp/fused.cl" || { echo "candidates/fused.cl has no kernel convolve_fused"; exit 1; }
python3 "$src/bench/fft_tiled_probes.py" "$tmp/fused.cl" "$tmp/probes"
for probe in memory no-spectrum no-image; do
  "$bin/step10-fft-tiled" --kernel "$tmp/probes/$probe.cl" --image synthetic:150x90 \
    --filter random:15 --tile 64 --wg 128x1 --reps 1 > /dev/null ||
    { echo "the $probe probe did not run"; exit 1; }
done
"$bin/step10-fft-tiled" --kernel "$tmp/probes/every-row.cl" --image synthetic:150x90 \
  --filter random:15 --tile 64 --wg 128x1 --reps 1 --verify > /dev/null ||
  { echo "the every-row probe is not a correlation"; exit 1; }
sed 's/filter_spectrum\[(base/filter_spectrum[(BASE/' "$tmp/fused.cl" > "$tmp/changed.cl"
if python3 "$src/bench/fft_tiled_probes.py" "$tmp/changed.cl" "$tmp/refused" 2> "$tmp/err"; then
  echo "a kernel without the spectrum's product was not refused"
  exit 1
fi
grep -q "no-spectrum" "$tmp/err" || { echo "the refusal does not name the probe:"; cat "$tmp/err"; exit 1; }
echo "fft_tiled_probes: every probe builds and runs"
