// A candidate of step 8's tuner (docs/step8-separable.md, "Candidates"),
// for a box filter only, built after the lesson's convolve.cl (whose
// functions it does not need).
//
// A box in one kernel (--method box): the column pass first, its
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
// column go to __local memory, column by column (a column's sums BATCH + 1 floats apart: no two
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
#define GROUP_SIZE (WG_X * WG_Y)
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
