// A candidate of step 8's tuner (docs/step8-separable.md, "Candidates"),
// built after the lesson's convolve.cl and fused.cl, whose functions it
// calls (TAPS_X = TAPS_Y = 1).
//
// Both passes in one kernel, a work-group walking down a strip of the image
// (--method strip). convolve_fused pays for its halo twice over: the
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
    float sum[BLOCK_Y][BLOCK_X] = {{0.0f}};
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
