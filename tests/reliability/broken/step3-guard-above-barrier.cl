// BROKEN ON PURPOSE (docs/reliability.md): step 3's kernel with its range
// guard moved above the barrier. Work-items past the image return before
// the barrier the rest of their group waits at: undefined behaviour. On
// PoCL the returned work-items run on past the barrier anyway and write
// past the end of the output, which the harness's guard bands catch.
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

  if (x >= out_width || y >= out_height) return;  // BROKEN: above the barrier

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

  float sum = 0.0f;
  for (int r = 0; r < filter_width; r++) {
    for (int c = 0; c < filter_width; c++) {
      sum += filter[r * filter_width + c] * tile[(ly + r) * tile_width + (lx + c)];
    }
  }
  output[y * out_width + x] = sum;
}
