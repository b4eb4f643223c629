#!/usr/bin/env bash
# The experiments behind the lessons, each one sweep command.
#   bench/experiments.sh NAME TAG [extra sweep options]
# writes docs/results/NAME-TAG.csv (or $RESULTS/NAME-TAG.csv). TAG names the
# device (pocl, h100, ...); extra options select it, e.g. --platform NVIDIA.
# Names:
#   steps1to4  steps 1-4 at F = 3, 5, 7 on 600x400 with work-groups 8x8, 16x16,
#            32x32, beside the serial baseline (the course report, the course report)
#   wg-shapes  step 3 with work-groups 16x16, 32x8, 8x32 on 512^2, 1024^2,
#            2048^2 with the 7x7 motion blur (the final-exam report, the final-exam report)
#   unroll-widths  step 4's three variants over filter widths 1..32 (the AMD
#            tutorial's sawtooth, AMD's tutorial); image $UNROLL_WIDTHS_IMAGE
#            (default 1024x1024; the H100 run uses 4096x4096)
#   vector   step 5, float4 against scalar loads, aligned against unaligned
#            rows, on 1900^2, 1919^2, 2000^2, 2048^2 (the final-exam report, 3.1/3.2/5.2)
#   blocks   step 6's block sizes and work-groups, F = 3, 5, 7, 15, 31, on
#            $BLOCKS_IMAGE (default 8192x8192), work-groups $BLOCKS_WGS: the
#            sweep behind its defaults
# (tuning, inline, unroll, direct, direct-f7, direct-cpu and unroll-cpu
# measure step 7's switches; the committed CSVs of them were measured when
# those switches were step 6's, and name step6-multioutput.)
#   tuning   step 7's shapes on $TUNING_IMAGE (default 8192x8192): blocks x
#            work-groups at F = 3, 5, 7 (tile rows unrolled); at F = 15, 31
#            the weights in constant or local memory, the rows loop kept;
#            then unrolled; then the vector shape. The search behind the
#            GPU's defaults; TUNING_PARTS="small large unrolled vectors"
#   inline   step 7's weights (auto, constant, local, inline: compiled in)
#            and tile copies (rows, flat), random filters, F = 3, 5, 7, 15,
#            31, work-groups 32x4 and 16x8, each with its default block and
#            tile-row loop (part small); then F = 15 inline and unrolled with
#            blocks 4x4, 8x4, 4x16 (part large), on $INLINE_IMAGE (default
#            8192x8192); INLINE_PARTS="small large"
#   unroll   step 7 with and without the tile-row loop unrolled, F = 3, 5, 7,
#            on $BLOCKS_IMAGE (default 8192x8192)
#   perf     every step at F = 3, 5, 7, 15, 31 on $PERF_IMAGE (default
#            8192x8192), each with its default work-group (16x16; step 6
#            tunes its own) and step 6 with its default block; step 4 also as
#            "fixed", the variant step 5 builds on
#   bank     step 6's filter bank: 1, 2, 4, 8, 16 random filters of F = 3 and
#            7 in one pass against as many separate passes, on $BANK_IMAGE
#            (default 8192x8192)
#   volume   step 6 in 3D: a $VOLUME_SIZE^3 uchar volume (default 256, the
#            size of the multi-dimensional post), 7^3 filters, banks of 1..16, naive against
#            register-blocked, GFLOP/s against the measured FMA peak
#   separable  step 8's passes and the fused kernel (--method passes,fused),
#            both with the tile (--rows tile --columns tile), block sizes, the
#            tile-row loop unrolled or not, work-groups 16x16 and 32x8,
#            box:3, box:15, box:31 on $BLOCKS_IMAGE (default 8192x8192);
#            separable-blocks: the passes' block (one for both) against the
#            work-group, with the tile, box:3 to box:63
#   separable-direct  step 8's passes without a tile (--columns direct,
#            --rows direct: convolve_direct): the blocks and work-groups with
#            the column pass's tile left out, the passes with both tiles
#            beside them, then the row pass with and without a tile and its
#            blocks, at $DIRECT_FILTERS (default box:3,box:31,box:63); the
#            fused kernel without a tile (--method fused-direct) and its
#            blocks at $DIRECT_FUSED_FILTERS (default box:3,box:5,box:7,box:11);
#            on $BLOCKS_IMAGE (default 8192x8192)
#   separable-strip  step 8's strip kernel (--method strip) at blocks 4x4
#            and 4x8, unrolled or not, beside the passes and the fused kernel
#            without a tile (--method fused-direct), box:3 to box:63 and
#            random:5 to random:31 ($STRIP_FILTERS), work-group 32x4, on
#            $BLOCKS_IMAGE (default 8192x8192)
#   direct   step 7 with and without the tile (--tile on, off: convolve_direct
#            reads the input through the caches), blocks 4x4, 4x8, 8x4, 4x16,
#            work-groups 32x4, 32x8, 64x2, 16x8, random filters of F = 3, 5
#            (tile rows unrolled), 7, 15, 31 (unrolled or not), on
#            $DIRECT_IMAGE (default 8192x8192): the sweep behind a GPU's
#            default of no tile; direct-f7: F = 7 alone without the tile,
#            weights constant or compiled in, blocks 4x2 to 8x8 and 4x16,
#            work-groups 32x4 to 512x1 (the search for its missed goal)
#   direct-cpu  the same choice on a CPU: step 7 with and without the tile,
#            blocks 8x4, 16x4, 16x8, work-groups 16x16 and 32x4, box:3 and
#            box:5 on $DIRECT_IMAGE (default 2048x2048), the whole sweep run
#            $DIRECT_ROUNDS times (default 3) and each row's median of the
#            rounds kept (a 2-core machine's launches come in two speeds):
#            the sweep behind a CPU's default of no tile at F = 3
#   separable-box  step 8's box kernel (--method box) at work-groups
#            $BOX_WGS (default 128x1 to 384x1 in steps of 32), beside its
#            passes and what a plain run takes (--method auto: the stored
#            winner of step8-separable --tune where the store holds one, else
#            the documented defaults), each at its own work-group, box:3 to
#            box:63 on $BLOCKS_IMAGE (default 8192x8192)
#   fft-product  step 9's spectra product apart or inside VkFFT's
#            convolution mode, smooth and power-of-two sizes, F = 3, 31, 63
#   fft-tuning  step 9 at random:31 on $FFT_IMAGE (default 8192x8192) with
#            VkFFT's own knobs (CLCONV_VKFFT: register boost, twiddle
#            tables, coalescing, threads) and other transform sizes
#            (CLCONV_FFT_SIZE, $FFT_SIZES), each row with the kernels VkFFT
#            ran per axis
#   fft-strips  step 9 at random:31 on images 8192 wide and 8192, 4170, 2070,
#            1020 high (transforms 8232 wide and 8232, 4200, 2100, 1050
#            high), the same columns as fft-tuning: does a column that fits
#            one VkFFT kernel make a strip of the image cheaper per pixel?
#   fft-cpu  steps 9 and 10 at their defaults (step 9's product inside
#            VkFFT) beside OpenCV's filter2D, random:31 and random:63 on
#            $FFT_CPU_IMAGE (default 2048x2048): the CPU goal of step 10's
#            lesson; the steps in three rounds, each its own process (each
#            row the median of the rounds), build/bin/opencv-filter2d right
#            after (needs OpenCV: bench/opencv.cmake)
#   unroll-cpu  step 7's vector shape (a CPU's default above F = 3) with its
#            loop over tile rows unrolled or not, box:7, box:15, box:31 on
#            $UNROLL_IMAGE (default 2048x2048), work-group 16x16: the sweep
#            behind a CPU's default of unrolling it up to F = 31
#   pocl-affinity  a CPU device's two speeds: step 6 at box:5 on
#            $AFFINITY_IMAGE (default 2048x2048), $AFFINITY_RUNS processes
#            (default 8) each with PoCL's threads left to the operating system
#            (POCL_AFFINITY=0) and pinned to cores (1, the harness's default),
#            in turn; one row per process, its variant naming the setting
# bank, volume and pocl-affinity run their own executables (build/bin/step6-bank,
# build/bin/step6-volume, build/bin/step6-multioutput); extra options go to them.
# The experiments on step 7's switches, and step 8's but separable-box, vary
# some settings and leave the rest to the step, which would take them from a
# stored winner where the user's cache holds one (step7-tuned --tune,
# step8-separable --tune). They measure against the documented defaults, so
# they run with a cache folder of their own that never holds a winner:
# clconv-defaults beside the user's cache.
set -euo pipefail
cd "$(dirname "$0")/.."
name="${1:?usage: bench/experiments.sh NAME TAG [sweep options]}"
tag="${2:?usage: bench/experiments.sh NAME TAG [sweep options]}"
shift 2
results="${RESULTS:-docs/results}"
mkdir -p "$results"
out="$results/$name-$tag.csv"
sweep=build/bin/sweep
bin=$(dirname "$sweep")
tmp="$out.tmp.$$"   # bank and volume write here first: a failed run leaves no CSV behind
trap 'rm -f "$tmp" "$tmp".note "$tmp".*.csv "$tmp".*.csv.partial' EXIT
case "$name" in
  tuning|inline|unroll|direct|direct-f7|direct-cpu|unroll-cpu|separable|separable-blocks|separable-direct|separable-strip)
    XDG_CACHE_HOME="${XDG_CACHE_HOME:-$HOME/.cache}/clconv-defaults"
    mkdir -p "$XDG_CACHE_HOME"
    export XDG_CACHE_HOME ;;
esac
case "$name" in
  bank)    { "$bin/step6-bank" --image "synthetic:${BANK_IMAGE:-8192x8192}" --filter-width 3 \
               --reps "${BANK_REPS:-20}" --csv "$@"
             "$bin/step6-bank" --image "synthetic:${BANK_IMAGE:-8192x8192}" --filter-width 7 \
               --reps "${BANK_REPS:-20}" --csv "$@" | tail -n +2; } > "$tmp"
           mv "$tmp" "$out"; exit 0 ;;
  volume)  "$bin/step6-volume" --size "${VOLUME_SIZE:-256}" --filter-width 7 --reps "${VOLUME_REPS:-10}" \
             --csv "$@" > "$tmp"
           mv "$tmp" "$out"; exit 0 ;;
  tuning)  t=(--steps 7 --images "${TUNING_IMAGE:-8192x8192}" --reps "${TUNING_REPS:-10}" --no-check)
           parts=()
           for part in ${TUNING_PARTS:-small large unrolled vectors}; do
             case "$part" in
               small) opts=(--filters box:3,box:5,box:7 --wgs "${TUNING_WGS:-16x16,32x4,16x8,32x8,64x2,8x8}"
                            --set shape=rows --set unroll=on --set weights=constant
                            --set block=4x4,4x8,8x4,8x8,4x16,16x4,8x2) ;;
               large) opts=(--filters box:15,box:31 --wgs "${TUNING_WGS_LARGE:-16x16,16x8,8x8,32x4,32x8}"
                            --set shape=rows --set unroll=off --set weights=constant,local
                            --set block=4x4,4x8,8x4,8x8,4x16) ;;
               unrolled) opts=(--filters box:15,box:31 --wgs 16x16,16x8 --set shape=rows --set unroll=on
                               --set weights=constant --set block=4x4,4x8) ;;
               vectors) opts=(--filters box:3,box:7,box:15,box:31 --wgs 16x16 --set shape=vectors
                              --set unroll=off --set weights=constant --set block=4x4,8x4,16x2,16x4) ;;
               *) echo "experiments.sh: unknown tuning part '$part'" >&2; exit 2 ;;
             esac
             # A part that fails or runs too long (a huge unrolled kernel) is left out, with a note.
             if timeout "${TUNING_PART_LIMIT:-300}" "$sweep" "${t[@]}" "${opts[@]}" --output "$tmp.$part.csv" "$@"; then
               parts+=("$tmp.$part.csv")
             else
               echo "experiments.sh: tuning part '$part' failed or timed out" >&2
             fi
           done
           [ ${#parts[@]} -gt 0 ] || exit 1
           awk 'FNR > 1 || NR == 1' "${parts[@]}" > "$tmp"
           rm -f "${parts[@]}"
           mv "$tmp" "$out"; exit 0 ;;
  inline)  t=(--steps 7 --images "${INLINE_IMAGE:-8192x8192}" --reps "${INLINE_REPS:-10}" --no-check)
           parts=()
           for part in ${INLINE_PARTS:-small large}; do
             case "$part" in
               small) opts=(--filters random:3,random:5,random:7,random:15,random:31 --wgs "${INLINE_WGS:-32x4,16x8}"
                            --set weights=auto,constant,local,inline --set copy=rows,flat) ;;
               large) opts=(--filters random:15 --wgs "${INLINE_WGS:-32x4,16x8}" --set weights=inline
                            --set unroll=on --set copy=flat --set block=4x4,8x4,4x16) ;;
               *) echo "experiments.sh: unknown inline part '$part'" >&2; exit 2 ;;
             esac
             if timeout "${INLINE_PART_LIMIT:-240}" "$sweep" "${t[@]}" "${opts[@]}" --output "$tmp.$part.csv" "$@"; then
               parts+=("$tmp.$part.csv")
             else
               echo "experiments.sh: inline part '$part' failed or timed out" >&2
               # the rows it finished are in the sweep's .partial file
               [ -s "$tmp.$part.csv.partial" ] && mv "$tmp.$part.csv.partial" "$tmp.$part.csv" &&
                 parts+=("$tmp.$part.csv")
             fi
           done
           [ ${#parts[@]} -gt 0 ] || exit 1
           awk 'FNR > 1 || NR == 1' "${parts[@]}" > "$tmp"
           rm -f "${parts[@]}"
           mv "$tmp" "$out"; exit 0 ;;
  steps1to4) exec "$sweep" --steps 1,2,3,4 --variants default --images 600x400 \
             --filters box:3,box:5,box:7 --wgs 8x8,16x16,32x32 --serial --reps 20 \
             --output "$out" "$@" ;;
  wg-shapes) exec "$sweep" --steps 3 --images 512x512,1024x1024,2048x2048 --filters motion45 \
             --wgs 16x16,32x8,8x32 --reps 20 --output "$out" "$@" ;;
  unroll-widths) exec "$sweep" --steps 4 --variants all --images "${UNROLL_WIDTHS_IMAGE:-1024x1024}" \
             --filters box:1..32 --wgs 16x16 --reps "${UNROLL_WIDTHS_REPS:-5}" --output "$out" "$@" ;;
  vector)  exec "$sweep" --steps 5 --variants all --set aligned=on,off \
             --images 1900x1900,1919x1919,2000x2000,2048x2048 --filters motion45 --wgs 16x16 \
             --reps 20 --output "$out" "$@" ;;
  blocks)  exec "$sweep" --steps 6 --images "${BLOCKS_IMAGE:-8192x8192}" \
             --filters box:3,box:5,box:7,box:15,box:31 --wgs "${BLOCKS_WGS:-16x16,32x8,16x8,32x4,8x8}" \
             --set block=4x1,4x2,4x4,4x8,8x2,8x4,8x8,16x2,16x4 --reps "${BLOCKS_REPS:-20}" --no-check \
             --output "$out" "$@" ;;
  unroll)  exec "$sweep" --steps 7 --images "${BLOCKS_IMAGE:-8192x8192}" --filters box:3,box:5,box:7 \
             --wgs 16x16,16x8 --set unroll=on,off --reps 20 --no-check --output "$out" "$@" ;;
  perf)    exec "$sweep" --steps 1,2,3,4,5,6,7 --variants default,fixed --images "${PERF_IMAGE:-8192x8192}" --wgs auto \
             --filters box:3,box:5,box:7,box:15,box:31 --reps 20 --no-check --output "$out" "$@" ;;
  separable) exec "$sweep" --steps 8 --set method=passes,fused --images "${BLOCKS_IMAGE:-8192x8192}" \
             --filters box:3,box:15,box:31 --wgs 16x16,32x8 --set block=4x2,4x4,8x2,8x4 \
             --set rows=tile --set columns=tile --set unroll=on,off --reps "${BLOCKS_REPS:-10}" --no-check --output "$out" "$@" ;;
  separable-blocks) exec "$sweep" --steps 8 --set method=passes --images "${BLOCKS_IMAGE:-8192x8192}" \
             --filters box:3,box:15,box:31,box:63 --wgs 16x16,32x8,32x4 --set block=4x4,4x8,4x16 \
             --set rows=tile --set columns=tile --reps "${BLOCKS_REPS:-10}" --no-check --output "$out" "$@" ;;
  direct)
    image="${DIRECT_IMAGE:-8192x8192}" reps="${DIRECT_REPS:-20}"
    common=(--steps 7 --images "$image" --wgs 32x4,32x8,64x2,16x8 --set tile=on,off
            --set block=4x4,4x8,8x4,4x16 --reps "$reps" --no-check)
    "$sweep" "${common[@]}" --filters random:3,random:5 --output "${out%.csv}.part1.csv" "$@"
    "$sweep" "${common[@]}" --filters random:7,random:15,random:31 --set unroll=on,off \
      --output "${out%.csv}.part2.csv" "$@"
    { cat "${out%.csv}.part1.csv"; tail -n +2 "${out%.csv}.part2.csv"; } > "$out"
    rm -f "${out%.csv}.part1.csv" "${out%.csv}.part2.csv" ;;
  direct-f7) exec "$sweep" --steps 7 --images "${DIRECT_IMAGE:-8192x8192}" --filters random:7 \
             --wgs 32x4,32x8,64x4,128x2,256x1,512x1 --set tile=off --set unroll=on --set weights=constant,inline \
             --set block=4x2,4x4,4x6,4x8,4x10,4x12,8x2,8x4,8x6,8x8,4x16 --reps "${DIRECT_REPS:-20}" --no-check \
             --output "$out" "$@" ;;
  unroll-cpu) exec "$sweep" --steps 7 --images "${UNROLL_IMAGE:-2048x2048}" --filters box:7,box:15,box:31 \
             --wgs 16x16 --set shape=vectors --set unroll=on,off --reps "${UNROLL_REPS:-11}" --no-check \
             --output "$out" "$@" ;;
  pocl-affinity)
    { for run in $(seq "${AFFINITY_RUNS:-8}"); do
        for affinity in 0 1; do
          POCL_AFFINITY=$affinity "$bin/step6-multioutput" --image "synthetic:${AFFINITY_IMAGE:-2048x2048}" \
            --filter box:5 --reps 21 --csv "$@" |
            awk -v a="$affinity" -v run="$run" -F, 'BEGIN { OFS = "," }
              NR == 1 { if (run == 1 && a == 0) print; next } { $5 = "POCL_AFFINITY=" a; print }'
        done
      done; } > "$tmp"
    mv "$tmp" "$out"; exit 0 ;;
  direct-cpu)
    image="${DIRECT_IMAGE:-2048x2048}" reps="${DIRECT_REPS:-21}"
    BUILD="$(dirname "$bin")" exec bench/sweep-rounds.sh "${DIRECT_ROUNDS:-3}" "$out" --steps 7 --images "$image" \
      --filters box:3,box:5 --wgs 16x16,32x4 --set tile=on,off --set block=8x4,16x4,16x8 --reps "$reps" --no-check "$@" ;;
  separable-direct)
    image="${BLOCKS_IMAGE:-8192x8192}" filters="${DIRECT_FILTERS:-box:3,box:31,box:63}"
    reps="${BLOCKS_REPS:-10}"
    "$sweep" --steps 8 --set method=passes --images "$image" --filters "$filters" --wgs 32x4,32x8,64x4 \
      --set rows=tile --set columns=direct --set block=4x8,4x16,4x32,8x8,8x16 --reps "$reps" \
      --no-check --output "${out%.csv}.part1.csv" "$@"
    "$sweep" --steps 8 --set method=passes --images "$image" --filters "$filters" --wgs 32x4 \
      --set rows=tile --set columns=tile --reps "$reps" --no-check --output "${out%.csv}.part2.csv" "$@"
    "$sweep" --steps 8 --set method=passes --images "$image" --filters "$filters" --wgs 32x4 \
      --set columns=direct --set rows=tile,direct --set block=4x1,4x8,8x1,8x2,16x1 --reps "$reps" \
      --no-check --output "${out%.csv}.part3.csv" "$@"
    "$sweep" --steps 8 --set method=fused-direct --images "$image" --filters "${DIRECT_FUSED_FILTERS:-box:3,box:5,box:7,box:11}" \
      --wgs 32x4,32x8 --set block=4x4,4x8,4x16,8x4,8x8 --reps "$reps" \
      --no-check --output "${out%.csv}.part4.csv" "$@"
    { cat "${out%.csv}.part1.csv"; tail -n +2 "${out%.csv}.part2.csv"; tail -n +2 "${out%.csv}.part3.csv"; tail -n +2 "${out%.csv}.part4.csv"; } > "$out"
    rm -f "${out%.csv}".part[1-4].csv ;;
  separable-strip)
    image="${BLOCKS_IMAGE:-8192x8192}" reps="${BLOCKS_REPS:-10}"
    filters="${STRIP_FILTERS:-box:3,box:5,box:7,box:9,box:11,box:15,box:21,box:31,box:45,box:63,random:5,random:7,random:11,random:15,random:21,random:31}"
    "$sweep" --steps 8 --set method=passes --images "$image" --filters "$filters" --wgs 32x4 --reps "$reps" \
      --no-check --output "${out%.csv}.part1.csv" "$@"
    "$sweep" --steps 8 --set method=fused-direct --images "$image" --filters "$filters" --wgs 32x4 \
      --reps "$reps" --no-check --output "${out%.csv}.part2.csv" "$@"
    "$sweep" --steps 8 --set method=strip --images "$image" --filters "$filters" --wgs 32x4 \
      --set block=4x4,4x8 --set unroll=on,off --reps "$reps" --no-check --output "${out%.csv}.part3.csv" "$@"
    { cat "${out%.csv}.part1.csv"; tail -n +2 "${out%.csv}.part2.csv"; tail -n +2 "${out%.csv}.part3.csv"; } > "$out"
    rm -f "${out%.csv}".part[1-3].csv ;;
  separable-box)
    image="${BLOCKS_IMAGE:-8192x8192}" reps="${BLOCKS_REPS:-10}"
    filters=box:3,box:5,box:7,box:9,box:11,box:15,box:21,box:31,box:45,box:63
    "$sweep" --steps 8 --set method=passes,auto --images "$image" --filters "$filters" --wgs auto --reps "$reps" \
      --no-check --output "$tmp.1.csv" "$@"
    "$sweep" --steps 8 --set method=box --images "$image" --filters "$filters" \
      --wgs "${BOX_WGS:-128x1,160x1,192x1,224x1,256x1,288x1,320x1,352x1,384x1}" \
      --reps "$reps" --no-check --output "$tmp.2.csv" "$@"
    { cat "$tmp.1.csv"; tail -n +2 "$tmp.2.csv"; } > "$tmp"
    rm -f "$tmp.1.csv" "$tmp.2.csv"
    mv "$tmp" "$out" ;;
  fft-product) exec "$sweep" --steps 9 --images "${BLOCKS_IMAGE:-8192x8192}" \
             --filters random:3,random:31,random:63 --set product=separate,fused --set size=smooth,pow2 \
             --reps "${BLOCKS_REPS:-10}" --no-check --output "$out" "$@" ;;
  fft-cpu)
    [ -x "$bin/opencv-filter2d" ] || { echo "$name: $bin/opencv-filter2d is not built (bench/opencv.cmake)" >&2; exit 1; }
    image="${FFT_CPU_IMAGE:-2048x2048}" filters=random:31,random:63
    BUILD="$(dirname "$bin")" bench/sweep-rounds.sh 3 "$tmp.1.csv" --steps 9,10 --images "$image" \
      --filters "$filters" --set product=fused --reps 3 --wgs auto --no-check "$@"
    "$bin/opencv-filter2d" --images "$image" --filters "$filters" --reps 3 --no-header > "$tmp.2.csv"
    cat "$tmp.1.csv" "$tmp.2.csv" > "$tmp"
    mv "$tmp" "$out" ;;
  fft-tuning|fft-strips)
    reps="${BLOCKS_REPS:-10}"
    run() {  # image, product, knobs, size: one row, with the kernels VkFFT ran per axis
      local note row
      row=$(CLCONV_VKFFT="$3" CLCONV_FFT_SIZE="$4" "$bin/step9-fft" --image "synthetic:$1" \
              --filter random:31 --product "$2" --reps "$reps" --csv "${@:5}" 2> "$tmp.note" | tail -n 1) ||
        { echo "$name: $1 $2 '$3' '$4' failed: $(tail -n 1 "$tmp.note")" >&2; return 0; }
      note=$(sed -n 's/.*VkFFT kernels per axis \([0-9+]*\).*/\1/p' "$tmp.note")
      echo "\"$3\",${4:-smooth},$note,$row" >> "$tmp"
      echo "$name: $1 $2 '$3' ${4:-smooth}: $(cut -d, -f13 <<< "$row") ms, kernels per axis $note" >&2
    }
    header=$("$bin/step9-fft" --image synthetic:64x64 --filter box:3 --reps 1 --csv "$@" 2> /dev/null | head -n 1)
    echo "vkfft,fft_size,axis_kernels,$header" > "$tmp"
    if [[ $name == fft-strips ]]; then
      for image in 8192x8192 8192x4170 8192x2070 8192x1020; do
        for product in fused separate; do run "$image" "$product" "" "" "$@"; done
      done
    else
      image="${FFT_IMAGE:-8192x8192}"
      for knobs in "" registerBoost=2,registerBoostNonPow2=1 registerBoost=4,registerBoostNonPow2=1 \
                   registerBoostNonPow2=1 useLUT=1 coalescedMemory=64 coalescedMemory=128 aimThreads=64 \
                   aimThreads=256 performBandwidthBoost=2 disableMergeSequencesR2C=1 sharedMemorySize=98304; do
        run "$image" fused "$knobs" "" "$@"
      done
      for size in ${FFT_SIZES:-8400x8400 8448x8448 8640x8640 8960x8960 9216x9216 8320x8320 8232x8400 8400x8232}; do
        run "$image" fused "" "$size" "$@"
        run "$image" fused registerBoost=2,registerBoostNonPow2=1 "$size" "$@"
      done
      run "$image" separate "" "" "$@"
      run "$image" separate registerBoost=2,registerBoostNonPow2=1 "" "$@"
    fi
    mv "$tmp" "$out" ;;
  *) echo "experiments.sh: unknown experiment '$name'" >&2; exit 2 ;;
esac
