// BROKEN ON PURPOSE (docs/reliability.md): step 3's kernel with the bounds
// check of its copy loop removed. Groups at the right and bottom edges copy
// a halo that reaches past the padded image: the last rows read past the end
// of the input buffer. The result can still be right: those pixels are unused.
__kernel void convolve(__global const float* input,
                       __constant float* filter,
                       __global float* output,
                       const int in_pitch,
                       const int out_width,
                       const int out_height,
                       const int filter_width,
                       __local float* tile,
                       const int tile_width,
                       const int tile_height) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);

  const int tile_x = get_group_id(0) * get_local_size(0);
  const int tile_y = get_group_id(1) * get_local_size(1);
  for (int ty = ly; ty < tile_height; ty += get_local_size(1)) {
    for (int tx = lx; tx < tile_width; tx += get_local_size(0)) {
      // The bug: no check that (tile_x + tx, tile_y + ty) is inside the input.
      tile[ty * tile_width + tx] = input[(tile_y + ty) * in_pitch + (tile_x + tx)];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  if (x >= out_width || y >= out_height) return;

  float sum = 0.0f;
  for (int r = 0; r < filter_width; r++) {
    for (int c = 0; c < filter_width; c++) {
      sum += filter[r * filter_width + c] * tile[(ly + r) * tile_width + (lx + c)];
    }
  }
  output[y * out_width + x] = sum;
}
