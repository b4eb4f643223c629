// Exercise, step 8 (docs/step8-separable.md, docs/coursework.md). Write the
// bodies of convolve() (one pass), convolve_direct() (one pass without the
// tile), convolve_fused() and convolve_fused_direct() (both passes in one
// kernel, with and without the tile), convolve_fused_strip() (both passes
// down a strip, the row sums in a ring) and convolve_fused_box() (a box:
// column sums in registers, adds only) below. As handed out, this file
// builds but computes nothing, so every conformance case of step 8 fails.
// The suite runs both variants (passes, fused), every kernel of each
// (--rows, --columns: tile, direct; --fused-kernel: tile, direct, strip;
// a box filter, 1 x 1 included, runs the box kernel) and filters of rank
// 1, 2 and full rank. Work on a copy in the repository root and grade the copy:
//   cp docs/exercises/step8-separable.cl my-step8.cl
//   CLCONV_KERNEL_STEP8=$PWD/my-step8.cl ctest --preset default -L step8
//
// The launcher builds it with -D TAPS_X=.. -D TAPS_Y=.. -D FILTER_WIDTH=F
// -D BLOCK_X=.. -D BLOCK_Y=.. -D WG_X=.. -D WG_Y=.., -D UNROLL_ROWS on a
// GPU, -D DIRECT_PASS where a kernel without the tile runs, -D STRIP
// -D RING=.. -D ROW_BLOCK=.. where the strip kernel does, and -D BOX
// -D WIDTH=.. -D BATCH=.. -D RUN_X=.. -D RUNS=.. where the box kernel does.
// The row pass has TAPS_X = F, TAPS_Y = 1; the column pass TAPS_X = 1,
// TAPS_Y = F; the fused program TAPS_X = TAPS_Y = 1 (it does not use
// convolve()).
//
// Step 8: a change of algorithm (docs/step8-separable.md), built from step 6's
// pieces: the tile, float4 loads and register blocking.
//
// Step 8: a separable filter, K = column * row^T, is two 1D filters, so
// the F x F sum becomes two sums of F: a row pass (1 x F taps, over every
// padded row) into an intermediate image, then a column pass (F x 1 taps)
// over it. Each pass is this same kernel with TAPS_X x TAPS_Y taps: step 6's
// tile, float4 loads and register blocking, with one side of the window 1.
// A filter of rank k is k such pairs; the column passes after the first add
// to the output (`accumulate`). One pass's code grows with F, not F * F, so
// the loop over tile rows can be unrolled (UNROLL_ROWS) at any width: every
// weight index becomes a constant. convolve_fused does both passes in one
// kernel through __local memory instead (the lesson measures which wins).
// convolve_direct is a pass without the tile (a GPU's passes), and
// convolve_fused_direct both passes in one kernel without it: the caches
// stand in for the tile.
//
// A pass does 2F multiply-adds per output, not F * F, so the tile copy is
// no longer hidden behind arithmetic: at small F a pass is a copy, and its
// speed is how many bytes are in flight. The work-group's shape (WG_X x
// WG_Y) is therefore a compile-time constant too: each work-item issues all
// of its tile loads (TILE_LOADS float4s, numbered along the tile's rows so
// that neighbours read neighbouring bytes) into registers first, and only
// then stores them to __local memory, instead of one load, wait, store at a
// time.
//
// The host padded the input by the filter's reach, as in every step. The
// register block's loops are written once, as the functions below, for
// all four kernels.

#define GROUP_SIZE (WG_X * WG_Y)
// The tile of `convolve`: the group's outputs plus TAPS - 1 in each direction.
#define TILE_WIDTH ((WG_X * BLOCK_X + TAPS_X - 1 + 3) / 4 * 4)
#define TILE_HEIGHT (WG_Y * BLOCK_Y + TAPS_Y - 1)
#define TILE_LOADS ((TILE_WIDTH / 4 * TILE_HEIGHT + GROUP_SIZE - 1) / GROUP_SIZE)
#define ROW_FLOAT4S ((BLOCK_X + TAPS_X - 1 + 3) / 4)  // a pass's row under a block, in float4s

// ---- the register block, once ------------------------------------------------

inline void zero_block(float sum[BLOCK_Y][BLOCK_X]) {
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] = 0.0f;
  }
}

// A pass: row j under the block (in registers) meets output row by through
// filter row j - by of the TAPS_Y x TAPS_X window.
inline void add_tile_row(float sum[BLOCK_Y][BLOCK_X], const float* row, const int j,
                         __constant const float* filter) {
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
    const int r = j - by;
    if (r >= 0 && r < TAPS_Y) {
#pragma unroll
      for (int c = 0; c < TAPS_X; c++) {
        const float w = filter[r * TAPS_X + c];
#pragma unroll
        for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] += w * row[bx + c];
      }
    }
  }
}

// The fused kernels' row pass: BLOCK_X sums of F taps along one row.
inline void row_sums(float part[BLOCK_X], const float* row, __constant const float* row_weights) {
#pragma unroll
  for (int bx = 0; bx < BLOCK_X; bx++) part[bx] = 0.0f;
#pragma unroll
  for (int c = 0; c < FILTER_WIDTH; c++) {
    const float w = row_weights[c];
#pragma unroll
    for (int bx = 0; bx < BLOCK_X; bx++) part[bx] += w * row[bx + c];
  }
}

// The fused kernels' column pass: the row sums of row j meet output row by
// through column weight j - by.
inline void add_row_sums(float sum[BLOCK_Y][BLOCK_X], const float* part, const int j,
                         __constant const float* column_weights) {
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
    const int r = j - by;
    if (r >= 0 && r < FILTER_WIDTH) {
      const float w = column_weights[r];
#pragma unroll
      for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] += w * part[bx];
    }
  }
}

// The block's sums stored as float4s (the output is whole blocks), added to
// what is there when `accumulate` (a term after the first).
inline void store_block(float sum[BLOCK_Y][BLOCK_X], __global float* output, const int x, const int y,
                        const int out_pitch, const int accumulate) {
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int q = 0; q < BLOCK_X / 4; q++) {
      float4 v = (float4)(sum[by][4 * q], sum[by][4 * q + 1], sum[by][4 * q + 2], sum[by][4 * q + 3]);
      __global float4* out = (__global float4*)(output + (y + by) * out_pitch + x + 4 * q);
      if (accumulate) v += *out;
      *out = v;
    }
  }
}

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void convolve(__global const float* input,   // padded, in_pitch floats per row
                       __constant float* filter,      // F x F, row-major
                       __global float* output,        // whole blocks, out_pitch floats per row
                       const int in_pitch,
                       const int out_pitch,           // floats per output row
                       __local float* tile,           // TILE_WIDTH x TILE_HEIGHT
                       const int accumulate) {        // add to the output (terms after the first)
  // TODO 1. Step 6's kernel with a TAPS_Y x TAPS_X window instead of F x F:
  // copy the tile with float4 loads, barrier, BLOCK_Y x BLOCK_X sums in
  // registers (the loop over tile rows unrolled when UNROLL_ROWS is defined).
  // TODO 2. Store the block as float4s; when `accumulate` is set, add
  // what the output already holds (the earlier terms' sum).
}

#ifdef DIRECT_PASS
// A pass without the tile (--rows direct, --columns direct). Each
// work-item reads the rows under its block straight from global memory,
// then runs the same loop as `convolve`. The tile's job, reading each input
// from DRAM about once, falls to the caches: the work-items along a
// work-group row read neighbouring float4s (one coalesced transaction per
// warp and row), and the rows that blocks above and below share come back
// from L1 or L2. No copy, no barrier, no local memory: more work-groups fit
// on a compute unit, and a column block can be as tall as registers allow,
// reading BLOCK_Y + TAPS_Y - 1 rows for BLOCK_Y outputs.
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void convolve_direct(__global const float* input,   // padded, in_pitch floats per row
                              __constant float* filter,      // TAPS_Y x TAPS_X, row-major
                              __global float* output,        // out_pitch floats per row
                              const int in_pitch,
                              const int out_pitch,
                              const int accumulate) {        // add to the output (terms after the first)
  // TODO 3. The same sums as convolve() with no tile: read each row under
  // the block straight from `input` (float4 loads), BLOCK_Y x BLOCK_X sums in
  // registers; store as float4s, adding to the output when `accumulate` is set.
}
#endif

// Both passes in one kernel. The tile (the group's outputs plus F - 1 in
// both directions) is loaded once; the row pass writes its sums for every
// tile row to __local `mid`, and the column pass reads them from there, so
// the intermediate image never goes to global memory. The price: the row
// pass also runs over the F - 1 halo rows, and the tile and `mid` must both
// fit in local memory. A filter of rank k runs its k terms over one tile.
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void convolve_fused(__global const float* input,   // padded, in_pitch floats per row
                             __constant float* filter,      // per term: F row weights, F column weights
                             __global float* output,        // out_pitch floats per row
                             const int in_pitch,
                             const int out_pitch,
                             const int rank,                // terms in `filter`
                             __local float* tile,           // FUSED_WIDTH x FUSED_HEIGHT
                             __local float* mid) {          // (work-group width * BLOCK_X) x FUSED_HEIGHT
  // TODO 4. Copy the tile (the group's outputs plus F - 1 both ways), barrier.
  // TODO 5. For each term: the row pass over every tile row into `mid`
  // (BLOCK_X sums per work-item and row), barrier; the column pass from
  // `mid` into BLOCK_Y x BLOCK_X register sums, barrier.
  // TODO 6. Store the block as float4s, with no guard.
}

#ifdef DIRECT_PASS
// Both passes in one kernel without the tile (--fused-kernel direct). Each
// work-item walks down the BLOCK_Y + F - 1 input rows under its block: on
// each it runs the row pass (BLOCK_X sums from a segment read straight from
// global memory, as convolve_direct reads it) and adds the result to the up
// to BLOCK_Y column sums that row meets. One pass over the image and no
// local memory, no barrier; the price is the row pass over F - 1 more rows
// per block, (BLOCK_Y + F - 1) / BLOCK_Y times its work, which is cheap only
// while F is small. (F and SEGMENT_FLOAT4S: as in convolve_fused.)
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void convolve_fused_direct(__global const float* input,   // padded, in_pitch floats per row
                                    __constant float* filter,      // per term: F row weights, F column weights
                                    __global float* output,        // out_pitch floats per row
                                    const int in_pitch,
                                    const int out_pitch,
                                    const int rank) {              // terms in `filter`
  // TODO 7. convolve_fused() with no tile and no `mid`: for each term, walk
  // down the BLOCK_Y + F - 1 input rows under the block; on each, the row
  // pass (BLOCK_X sums from a segment read straight from `input`), added to
  // the column sums that row meets. Store the block as float4s.
}
#endif

#ifdef STRIP
// Both passes in one kernel, a work-group walking down a strip of the image
// (--fused-kernel strip). convolve_fused pays for its halo twice over: the
// row pass runs over F - 1 extra rows per tile, and the tile and its row
// sums must both fit local memory, so a wide filter leaves room for only a
// short tile and the halo dominates. Here the work-group keeps only row
// sums, RING rows of them in local memory used as a ring (row r lives in
// slot r mod RING), and moves down its strip CHUNK output rows at a time:
// each step runs the row pass on the CHUNK input rows it has not summed
// yet, reading them straight from global memory (the caches serve the
// halo columns), then the column pass on the CHUNK + F - 1 rows of sums
// under the chunk. A row's sums are computed once per strip, not once per
// tile, so the halo is paid once per strip (F - 1 rows of its height) and
// the ring needs CHUNK + F - 1 rows however tall the strip. A filter of
// rank k sums its terms in one pass too, but the ring holds one term's
// sums, so each term runs the row pass over all CHUNK + F - 1 rows.
//
// Compile-time: FILTER_WIDTH, WG_X, WG_Y, BLOCK_X x BLOCK_Y (the column
// pass's outputs per work-item), ROW_BLOCK (the row pass's outputs per
// task, a multiple of 4 dividing WG_X * BLOCK_X) and RING (at least
// CHUNK + F - 1).
#define CHUNK (WG_Y * BLOCK_Y)                            // output rows per step down the strip
#define STRIP_WIDTH (WG_X * BLOCK_X)                      // outputs across the strip
#define ROW_TASKS (STRIP_WIDTH / ROW_BLOCK)               // row-pass tasks per row
#define ROW_SEGMENT ((ROW_BLOCK + FILTER_WIDTH - 1 + 3) / 4)  // a task's input, in float4s

// The row pass of one task: ROW_BLOCK sums of F taps along one row.
inline void strip_row_sums(float part[ROW_BLOCK], const float* row, __constant const float* row_weights) {
#pragma unroll
  for (int bx = 0; bx < ROW_BLOCK; bx++) part[bx] = 0.0f;
#pragma unroll
  for (int c = 0; c < FILTER_WIDTH; c++) {
    const float w = row_weights[c];
#pragma unroll
    for (int bx = 0; bx < ROW_BLOCK; bx++) part[bx] += w * row[bx + c];
  }
}

// Ring slot `first + j` for 0 <= j < RING, where first < RING.
inline int ring_slot(const int first, const int j) {
  const int slot = first + j;
  return slot >= RING ? slot - RING : slot;
}

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void convolve_fused_strip(__global const float* input,   // padded, in_pitch floats per row
                                   __constant float* filter,      // per term: F row weights, F column weights
                                   __global float* output,        // out_pitch floats per row
                                   const int in_pitch,
                                   const int out_pitch,
                                   const int rank,                // terms in `filter`
                                   const int strip_rows,          // output rows per strip, a multiple of CHUNK
                                   const int out_rows,            // output rows in all, a multiple of CHUNK
                                   __local float* sums) {         // RING rows of STRIP_WIDTH row sums
  // TODO 8. Walk down this group's strip (rows top .. bottom) CHUNK output
  // rows at a time. For each term: the row pass of every input row of the
  // chunk's window the ring lacks (rank 1 keeps the last F - 1; a later
  // term overwrote them), ROW_BLOCK sums per task, into ring slot row % RING;
  // barrier; the column pass from the ring into BLOCK_Y x BLOCK_X register
  // sums; barrier (the next row pass overwrites slots). Store the block.
}
#endif

#ifdef BOX
// A box in one kernel (--fused-kernel box): the column pass first, its
// sums kept in registers, and no multiply-adds at all. All F x F weights of
// a box are one number, the product of its row weight and column weight,
// so an output is that number times the plain sum of its F x F inputs, and
// neighbouring windows share most of their inputs.
//
// The split. Take windows j = 0 .. n - 1 (n <= F) of a line of inputs,
// window j the inputs j .. j + F - 1. Every one of them reaches past input
// F - 1 and none starts after it, so each splits there: inputs j .. F - 1
// (a suffix sum, taken walking down from F - 1) plus inputs F .. F + j - 1
// (a prefix sum, walking up from F). One walk down of F adds, one walk up
// of n - 1 and n - 1 adds to join them: about F + 2n adds for n windows
// instead of n * F, so about 3 per output when n is near F. Nothing is
// subtracted, so nothing cancels: each window is rounded as a sum of its
// own F inputs, within the bound of the multiply-adds. (A running sum that
// adds the entering input and subtracts the leaving one is cheaper still,
// but carries the rounding of every earlier window into this one: after a
// bright patch, a dark window keeps an error the size of the patch.)
//
// Down the columns. One work-item per column of a strip WIDTH outputs
// wide plus its F - 1 halo columns, walking down the strip. Output row y
// is the sum of input rows y .. y + F - 1, split as above: rows come in
// runs of F, and for the run starting at row k each window y = k + j
// (0 <= j < F) is the suffix sum of the run's rows k + j .. k + F - 1 plus
// the prefix sum of the next run's rows k + F .. k + F + j - 1. A run's
// suffix sums are F registers, s[0] to s[F - 1]; reading the next run's
// rows one by one, row j adds to the prefix sum and takes s[j]'s place
// once window j has used it, and when the run is read its F values become
// suffix sums, walking down from s[F - 1]. Each input is read from global
// memory once per strip (its halo rows, F past its outputs, and its halo
// columns are read by the strip below or beside it too).
//
// Along the rows. Every batch of up to BATCH rows, the column sums of every
// column go to __local
// memory, column by column (a column's sums BATCH + 1 floats apart: no two
// work-items of a warp on one bank), and the group runs the row pass over
// them: a task is RUN_X outputs of one row, split the same way. Runs of F
// rows are unrolled RUNS at a time (several runs fill a batch when F is
// small), so every batch ends at a constant place in the unrolled code.
//
// Compile-time: FILTER_WIDTH, WG_X x WG_Y (GROUP_SIZE work-items, run as
// one row), WIDTH (outputs across the strip, a multiple of 4,
// WIDTH + F - 1 <= GROUP_SIZE), BATCH, RUN_X (a multiple of 4 dividing
// WIDTH) and RUNS.
#ifndef F
#define F FILTER_WIDTH
#endif
#define COLUMNS (WIDTH + F - 1)  // column sums across: the strip and its halo
#define PITCH (BATCH + 1)        // floats between two columns' sums in __local memory
#define ROWS (RUNS * F)          // input rows per unrolled step down the strip
#if ROWS > 4 * BATCH
#error "convolve_fused_box writes out at most 4 batches per step (F <= 127 with BATCH = 32)"
#endif

// The row pass of one batch: rows first_row .. + count - 1 of the output,
// RUN_X outputs per work-item (BATCH * WIDTH / RUN_X <= GROUP_SIZE of them), a
// warp's work-items on neighbouring rows (neighbouring banks). The sums go
// back to __local memory, row by row (WIDTH + 1 floats apart: neighbouring
// rows on neighbouring banks), and leave for global memory from there, a
// warp's stores on one row: stored straight from the tasks, each work-item
// on its own row, they made the kernel slower than two passes on an H100.
inline void box_row_pass(__local float* columns, __global float* output, const int out_pitch, const int x0,
                         const int first_row, const int count, const int out_rows, const float w) {
  const int t = get_local_id(0);
  const int r = t % BATCH;
  const int c = (t / BATCH) * RUN_X;
  const bool task = t < BATCH * (WIDTH / RUN_X) && r < count;
  float part[RUN_X];
  if (task) {
    __local const float* v = columns + c * PITCH + r;  // column c + i at v[i * PITCH]
#pragma unroll
    for (int i0 = 0; i0 < RUN_X; i0 += F) {
      const int n = min(F, RUN_X - i0);  // outputs i0 .. i0 + n - 1
      float down = 0.0f;
#pragma unroll
      for (int i = F - 1; i >= 0; i--) {
        down += v[(i0 + i) * PITCH];
        if (i < n) part[i0 + i] = down;
      }
      float up = 0.0f;
#pragma unroll
      for (int i = 1; i < n; i++) {
        up += v[(i0 + F + i - 1) * PITCH];
        part[i0 + i] += up;
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // every column sum read before the rows overwrite them
  if (task) {
#pragma unroll
    for (int i = 0; i < RUN_X; i++) columns[r * (WIDTH + 1) + c + i] = part[i];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = t; i < count * WIDTH; i += GROUP_SIZE) {
    const int row = i / WIDTH, x = i - row * WIDTH;
    if (first_row + row < out_rows) output[(first_row + row) * out_pitch + x0 + x] = w * columns[row * (WIDTH + 1) + x];
  }
}

// The column sums of output rows y + first .. y + last - 1 (first and last
// constants, so the loop unrolls and s[] stays in registers) into the
// batch: input rows y + F + e are read from `in`, at e * in_pitch. A run
// starts where e is a multiple of F: the run just read becomes suffix sums.
inline void box_columns(float s[F], float* p, __global const float* in, const int in_pitch,
                        __local float* columns, const int lx, const int first, const int last) {
  // Every row of the batch is asked for before any is used: BATCH loads
  // in flight per work-item, not one.
  float rows[BATCH];
#pragma unroll
  for (int e = first; e < last; e++) rows[e - first] = in[e * in_pitch];
#pragma unroll
  for (int e = first; e < last; e++) {
    const int j = e % F;  // output row y + e is window j of the run before
    if (j == 0 && e > 0) {
#pragma unroll
      for (int i = F - 2; i >= 0; i--) s[i] += s[i + 1];
      *p = 0.0f;
    }
    if (lx < COLUMNS) columns[lx * PITCH + e - first] = j == 0 ? s[0] : s[j] + *p;
    const float x = rows[e - first];
    *p += x;
    s[j] = x;
  }
}

// One batch: its column sums, then (every sum in __local memory) the row pass.
#define BOX_BATCH(first)                                                                                  \
  do {                                                                                                    \
    box_columns(s, &p, in + (y + F) * in_pitch, in_pitch, columns, lx, (first), min((first) + BATCH, ROWS)); \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                         \
    box_row_pass(columns, output, out_pitch, x0, y + (first), min(BATCH, ROWS - (first)), out_rows, w);   \
    barrier(CLK_LOCAL_MEM_FENCE); /* read before the next batch overwrites */                             \
  } while (0)

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void convolve_fused_box(__global const float* input,  // padded, in_pitch floats per row
                        __constant float* filter,     // F row weights, then F column weights
                        __global float* output,       // out_pitch floats per row
                        const int in_pitch,
                        const int out_pitch,
                        const int steps,              // ROWS output rows each, per strip
                        const int out_rows,           // output rows to write
                        __local float* columns) {     // COLUMNS x PITCH column sums, or BATCH rows of outputs
  // TODO 9. One work-item per column (strip and halo). Read the strip's
  // first F rows into s[], turn them into suffix sums. Then, a step of ROWS
  // rows at a time, batch by batch (BOX_BATCH): each column sum is s[j]
  // plus the prefix sum of the next run's rows read so far, into
  // `columns`; barrier; the row pass (box_row_pass: split sums along each
  // row, out through __local memory to coalesced stores); barrier. After a
  // run, its rows become the next suffix sums.
}
#endif
