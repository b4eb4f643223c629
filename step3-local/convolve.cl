// Step 3: a tile in local memory (docs/step3-local.md). The work-group first
// copies the input it needs - its own tile plus a halo of F - 1 columns and
// rows - into __local memory, waits at a barrier, then correlates from
// there. Each input pixel is read from global memory about once per
// work-group instead of up to F * F times. The rest is step 2's kernel.

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

  float sum = 0.0f;
  for (int r = 0; r < filter_width; r++) {
    const int f = r * filter_width;               // first weight of filter row r
    const int t = (ly + r) * tile_width + lx;     // first tile pixel under it
    for (int c = 0; c < filter_width; c++) {
      sum += filter[f + c] * tile[t + c];
    }
  }
  output[y * out_width + x] = sum;
}
