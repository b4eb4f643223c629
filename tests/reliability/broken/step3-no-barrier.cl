// BROKEN ON PURPOSE (docs/reliability.md): step 3's kernel with its barrier
// removed. A work-item may read a tile pixel before the work-item that copies
// it has written it: a data race on __local memory. On a CPU device it often
// gives the right answer anyway, which is why a checker is needed.
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
  const int in_width = out_width + filter_width - 1;
  const int in_height = out_height + filter_width - 1;
  for (int ty = ly; ty < tile_height; ty += get_local_size(1)) {
    for (int tx = lx; tx < tile_width; tx += get_local_size(0)) {
      if (tile_x + tx < in_width && tile_y + ty < in_height) {
        tile[ty * tile_width + tx] = input[(tile_y + ty) * in_pitch + (tile_x + tx)];
      }
    }
  }
  // The bug: no barrier(CLK_LOCAL_MEM_FENCE) here.

  if (x >= out_width || y >= out_height) return;

  float sum = 0.0f;
  for (int r = 0; r < filter_width; r++) {
    for (int c = 0; c < filter_width; c++) {
      sum += filter[r * filter_width + c] * tile[(ly + r) * tile_width + (lx + c)];
    }
  }
  output[y * out_width + x] = sum;
}
