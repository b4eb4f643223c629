// Step 4: the inner loop unrolled by four (docs/step4-unroll.md), so the
// loop test and branch run a quarter as often. Three variants, chosen at
// build time:
//   loop4  (default)          the leftover F % 4 columns run in a second loop;
//   ifelse (-D REMAINDER_IFELSE) the leftovers are an if-else chain instead;
//   fixed  (-D FILTER_WIDTH=F)   F is a compile-time constant, so the
//                                compiler unrolls both loops completely.
// The rest is step 3's kernel.

__kernel void convolve(__global const float* input,   // padded, in_pitch floats per row
                       __constant float* filter,      // F x F, row-major
                       __global float* output,        // out_width x out_height
                       const int in_pitch,
                       const int out_width,
                       const int out_height,
                       const int filter_width,
                       __local float* tile,           // tile_width x tile_height
                       const int tile_width,          // work-group width + F - 1
                       const int tile_height) {       // work-group height + F - 1
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);

  // Copy the tile and its halo. The tile is larger than the work-group, so
  // each work-item loads several pixels, striding by the work-group size.
  const int tile_x = get_group_id(0) * get_local_size(0);
  const int tile_y = get_group_id(1) * get_local_size(1);
  const int in_width = out_width + filter_width - 1;
  const int in_height = out_height + filter_width - 1;
  for (int ty = ly; ty < tile_height; ty += get_local_size(1)) {
    for (int tx = lx; tx < tile_width; tx += get_local_size(0)) {
      // Groups at the right and bottom edges reach past the image: skip those.
      if (tile_x + tx < in_width && tile_y + ty < in_height) {
        tile[ty * tile_width + tx] = input[(tile_y + ty) * in_pitch + (tile_x + tx)];
      }
    }
  }
  // Every work-item of the group must arrive here before any reads the tile,
  // so the range guard comes after the barrier, never before it.
  barrier(CLK_LOCAL_MEM_FENCE);

  // The global size was rounded up to a multiple of the work-group, so the
  // last groups have work-items past the image: they must do nothing.
  if (x >= out_width || y >= out_height) return;

#ifdef FILTER_WIDTH
#define F FILTER_WIDTH  // a constant: the compiler can unroll both loops
#else
#define F filter_width
#endif
  float sum = 0.0f;
#ifdef FILTER_WIDTH
#pragma unroll
#endif
  for (int r = 0; r < F; r++) {
    const int f = r * F;                          // first weight of filter row r
    const int t = (ly + r) * tile_width + lx;     // first tile pixel under it
    // The row's F products: one whole inner loop per variant.
#if defined(FILTER_WIDTH)
    // fixed: a plain loop, which the compiler unrolls completely.
#pragma unroll
    for (int c = 0; c < F; c++) {
      sum += filter[f + c] * tile[t + c];
    }
#elif defined(REMAINDER_IFELSE)
    // ifelse: four products per iteration, then the leftovers as an if-else chain.
    int c = 0;
    for (; c + 4 <= F; c += 4) {
      sum += filter[f + c] * tile[t + c];
      sum += filter[f + c + 1] * tile[t + c + 1];
      sum += filter[f + c + 2] * tile[t + c + 2];
      sum += filter[f + c + 3] * tile[t + c + 3];
    }
    const int left = F - c;
    if (left == 3) {
      sum += filter[f + c] * tile[t + c];
      sum += filter[f + c + 1] * tile[t + c + 1];
      sum += filter[f + c + 2] * tile[t + c + 2];
    } else if (left == 2) {
      sum += filter[f + c] * tile[t + c];
      sum += filter[f + c + 1] * tile[t + c + 1];
    } else if (left == 1) {
      sum += filter[f + c] * tile[t + c];
    }
#else
    // loop4: four products per iteration, then the leftovers in a second loop.
    int c = 0;
    for (; c + 4 <= F; c += 4) {
      sum += filter[f + c] * tile[t + c];
      sum += filter[f + c + 1] * tile[t + c + 1];
      sum += filter[f + c + 2] * tile[t + c + 2];
      sum += filter[f + c + 3] * tile[t + c + 3];
    }
    for (; c < F; c++) {
      sum += filter[f + c] * tile[t + c];
    }
#endif
  }
  output[y * out_width + x] = sum;
}
