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
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);

  // Copy the tile and its halo, every load in flight before the first store.
  const int x0 = get_group_id(0) * WG_X * BLOCK_X;
  const int y0 = get_group_id(1) * WG_Y * BLOCK_Y;
  const int lid = ly * WG_X + lx;
  float4 staged[TILE_LOADS];
#pragma unroll
  for (int k = 0; k < TILE_LOADS; k++) {
    const int q = lid + k * GROUP_SIZE;  // the tile's float4 number, row by row
    if (q < TILE_WIDTH / 4 * TILE_HEIGHT)
      staged[k] = *(__global const float4*)(input + (y0 + q / (TILE_WIDTH / 4)) * in_pitch +
                                            x0 + 4 * (q % (TILE_WIDTH / 4)));
  }
#pragma unroll
  for (int k = 0; k < TILE_LOADS; k++) {
    const int q = lid + k * GROUP_SIZE;
    if (q < TILE_WIDTH / 4 * TILE_HEIGHT) vstore4(staged[k], q, tile);
  }
  // Every work-item of the group must arrive here before any reads the tile.
  barrier(CLK_LOCAL_MEM_FENCE);

  float sum[BLOCK_Y][BLOCK_X];
  zero_block(sum);
  // Tile row j meets output row by of the block through filter row j - by.
  // With -D UNROLL_ROWS the compiler unrolls this loop too, so each weight
  // is loaded once (good for small filters, on some devices; see the lesson).
#ifdef UNROLL_ROWS
#pragma unroll
#endif
  for (int j = 0; j < BLOCK_Y + TAPS_Y - 1; j++) {
    float row[4 * ROW_FLOAT4S];
    const int t = (ly * BLOCK_Y + j) * TILE_WIDTH + lx * BLOCK_X;
#pragma unroll
    for (int q = 0; q < ROW_FLOAT4S; q++) vstore4(vload4(q, tile + t), q, row);
    add_tile_row(sum, row, j, filter);
  }
  store_block(sum, output, (get_group_id(0) * get_local_size(0) + lx) * BLOCK_X,
              (get_group_id(1) * get_local_size(1) + ly) * BLOCK_Y, out_pitch, accumulate);
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
  const int x = get_global_id(0) * BLOCK_X;
  const int y = get_global_id(1) * BLOCK_Y;
  float sum[BLOCK_Y][BLOCK_X];
  zero_block(sum);
#ifdef UNROLL_ROWS
#pragma unroll
#endif
  for (int j = 0; j < BLOCK_Y + TAPS_Y - 1; j++) {
    // x is a multiple of 4 and the pitch of 32, so these loads are aligned.
    __global const float* in = input + (y + j) * in_pitch + x;
    float row[4 * ROW_FLOAT4S];
#pragma unroll
    for (int q = 0; q < ROW_FLOAT4S; q++) vstore4(*(__global const float4*)(in + 4 * q), q, row);
    add_tile_row(sum, row, j, filter);
  }
  store_block(sum, output, x, y, out_pitch, accumulate);
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
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);
  // The tile, as `convolve` copies it: all loads, then all stores.
#define FUSED_WIDTH ((WG_X * BLOCK_X + FILTER_WIDTH - 1 + 3) / 4 * 4)
#define FUSED_HEIGHT (WG_Y * BLOCK_Y + FILTER_WIDTH - 1)
#define FUSED_LOADS ((FUSED_WIDTH / 4 * FUSED_HEIGHT + GROUP_SIZE - 1) / GROUP_SIZE)
  const int x0 = get_group_id(0) * WG_X * BLOCK_X;
  const int y0 = get_group_id(1) * WG_Y * BLOCK_Y;
  const int lid = ly * WG_X + lx;
  float4 staged[FUSED_LOADS];
#pragma unroll
  for (int k = 0; k < FUSED_LOADS; k++) {
    const int q = lid + k * GROUP_SIZE;
    if (q < FUSED_WIDTH / 4 * FUSED_HEIGHT)
      staged[k] = *(__global const float4*)(input + (y0 + q / (FUSED_WIDTH / 4)) * in_pitch +
                                            x0 + 4 * (q % (FUSED_WIDTH / 4)));
  }
#pragma unroll
  for (int k = 0; k < FUSED_LOADS; k++) {
    const int q = lid + k * GROUP_SIZE;
    if (q < FUSED_WIDTH / 4 * FUSED_HEIGHT) vstore4(staged[k], q, tile);
  }
  barrier(CLK_LOCAL_MEM_FENCE);

#define F FILTER_WIDTH
#define SEGMENT_FLOAT4S ((BLOCK_X + F - 1 + 3) / 4)  // the tile row under a block, in float4s
  const int mid_width = WG_X * BLOCK_X;
  float sum[BLOCK_Y][BLOCK_X];
  zero_block(sum);
  for (int term = 0; term < rank; term++) {
    __constant float* row_weights = filter + term * 2 * F;
    __constant float* column_weights = row_weights + F;
    // Row pass: BLOCK_X sums per work-item on tile rows ly, ly + height, ...
    for (int ty = ly; ty < FUSED_HEIGHT; ty += WG_Y) {
      float row[4 * SEGMENT_FLOAT4S];
      const int t = ty * FUSED_WIDTH + lx * BLOCK_X;
#pragma unroll
      for (int q = 0; q < SEGMENT_FLOAT4S; q++) vstore4(vload4(q, tile + t), q, row);
      float part[BLOCK_X];
      row_sums(part, row, row_weights);
#pragma unroll
      for (int q = 0; q < BLOCK_X / 4; q++)
        vstore4(vload4(q, part), 0, mid + ty * mid_width + lx * BLOCK_X + 4 * q);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Column pass: each row sum under the block meets up to BLOCK_Y outputs.
#ifdef UNROLL_ROWS
#pragma unroll
#endif
    for (int j = 0; j < BLOCK_Y + F - 1; j++) {
      float column[BLOCK_X];
#pragma unroll
      for (int q = 0; q < BLOCK_X / 4; q++)
        vstore4(vload4(0, mid + (ly * BLOCK_Y + j) * mid_width + lx * BLOCK_X + 4 * q), q, column);
      add_row_sums(sum, column, j, column_weights);
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // the next term's row pass overwrites mid
  }
  store_block(sum, output, (get_group_id(0) * get_local_size(0) + lx) * BLOCK_X,
              (get_group_id(1) * get_local_size(1) + ly) * BLOCK_Y, out_pitch, 0);
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
  const int x = get_global_id(0) * BLOCK_X;
  const int y = get_global_id(1) * BLOCK_Y;
  float sum[BLOCK_Y][BLOCK_X];
  zero_block(sum);
  for (int term = 0; term < rank; term++) {
    __constant float* row_weights = filter + term * 2 * F;
    __constant float* column_weights = row_weights + F;
#ifdef UNROLL_ROWS
#pragma unroll
#endif
    for (int j = 0; j < BLOCK_Y + F - 1; j++) {
      // The row pass on input row y + j (aligned float4 loads, as above),
      // then the column pass: that row's sums meet output rows j - F + 1 .. j.
      __global const float* in = input + (y + j) * in_pitch + x;
      float row[4 * SEGMENT_FLOAT4S];
#pragma unroll
      for (int q = 0; q < SEGMENT_FLOAT4S; q++) vstore4(*(__global const float4*)(in + 4 * q), q, row);
      float part[BLOCK_X];
      row_sums(part, row, row_weights);
      add_row_sums(sum, part, j, column_weights);
    }
  }
  store_block(sum, output, x, y, out_pitch, 0);
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
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);
  const int lid = ly * WG_X + lx;
  const int x0 = get_group_id(0) * STRIP_WIDTH;
  const int top = get_group_id(1) * strip_rows;
  const int bottom = min(top + strip_rows, out_rows);
  int summed = top;  // input rows top .. summed - 1 have their row sums in the ring
  for (int y = top; y < bottom; y += CHUNK) {
    float sum[BLOCK_Y][BLOCK_X];
    zero_block(sum);
    for (int term = 0; term < rank; term++) {
      __constant float* row_weights = filter + term * 2 * F;
      __constant float* column_weights = row_weights + F;
      // Row pass: the input rows y .. y + CHUNK + F - 2 whose sums the ring
      // lacks, ROW_TASKS tasks per row spread over the work-group. Rank 1
      // keeps the previous chunk's last F - 1 rows; a later term overwrites
      // them, so with k terms every term sums them all.
      const int first = rank == 1 ? summed : y;
      const int end = y + CHUNK + F - 1;
      for (int t = lid; t < (end - first) * ROW_TASKS; t += GROUP_SIZE) {
        const int r = first + t / ROW_TASKS;
        const int c = (t % ROW_TASKS) * ROW_BLOCK;
        // x0 + c is a multiple of 4 and the pitch of 32: aligned loads.
        __global const float* in = input + r * in_pitch + x0 + c;
        float row[4 * ROW_SEGMENT];
#pragma unroll
        for (int q = 0; q < ROW_SEGMENT; q++) vstore4(*(__global const float4*)(in + 4 * q), q, row);
        float part[ROW_BLOCK];
        strip_row_sums(part, row, row_weights);
#pragma unroll
        for (int q = 0; q < ROW_BLOCK / 4; q++)
          vstore4(vload4(q, part), 0, sums + (r % RING) * STRIP_WIDTH + c + 4 * q);
      }
      summed = end;
      // Every row sum of the chunk written before any work-item reads them.
      barrier(CLK_LOCAL_MEM_FENCE);
      // Column pass: the sums of ring row y + ly * BLOCK_Y + j meet output
      // row by of the block through column weight j - by.
      const int first_slot = (y + ly * BLOCK_Y) % RING;
#ifdef UNROLL_ROWS
#pragma unroll
#endif
      for (int j = 0; j < BLOCK_Y + F - 1; j++) {
        const int r = ring_slot(first_slot, j);
        float column[BLOCK_X];
#pragma unroll
        for (int q = 0; q < BLOCK_X / 4; q++)
          vstore4(vload4(0, sums + r * STRIP_WIDTH + lx * BLOCK_X + 4 * q), q, column);
        add_row_sums(sum, column, j, column_weights);
      }
      // Every read done before the next row pass overwrites ring slots.
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    store_block(sum, output, x0 + lx * BLOCK_X, y + ly * BLOCK_Y, out_pitch, 0);
  }
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
  const int lx = get_local_id(0);
  const int x0 = get_group_id(0) * WIDTH;
  const int top = get_group_id(1) * steps * ROWS;
  const float w = filter[0] * filter[F];
  // A work-item past the halo reads the last column again and keeps no
  // column sum (it still takes its part in the row pass and the stores).
  __global const float* in = input + x0 + min(lx, COLUMNS - 1);
  float s[F];
  // The first run: rows top .. top + F - 1, into suffix sums.
#pragma unroll
  for (int j = 0; j < F; j++) s[j] = in[(top + j) * in_pitch];
#pragma unroll
  for (int j = F - 2; j >= 0; j--) s[j] += s[j + 1];
  for (int y = top; y < top + steps * ROWS; y += ROWS) {
    float p = 0.0f;  // the prefix sum of the run being read
    // The step's batches, each written out, so that no barrier sits under
    // an `if` inside the unrolled loop over rows. A version that ran the row
    // pass from inside that loop, under an `if` every work-item took alike
    // (legal OpenCL), came out of PoCL 3.1 with the first row after each
    // batch wrong; Oclgrind ran it right. Not reduced to a report: the
    // kernel avoids the pattern.
    BOX_BATCH(0);
#if ROWS > BATCH
    BOX_BATCH(BATCH);
#endif
#if ROWS > 2 * BATCH
    BOX_BATCH(2 * BATCH);
#endif
#if ROWS > 3 * BATCH
    BOX_BATCH(3 * BATCH);
#endif
#pragma unroll
    for (int i = F - 2; i >= 0; i--) s[i] += s[i + 1];
  }
}
#endif
