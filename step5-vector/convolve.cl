// Step 5: the tile copied with float4 loads (docs/step5-vector.md). The
// launcher pads each row of the device image to 32 floats (128 bytes,
// --aligned on), so each load is one aligned 16-byte transaction, and leaves
// room after the image so that whole float4s never leave the buffer: the
// copy needs no bounds test. The rest is step 4's kernel, width compiled in.

__kernel void convolve(__global const float* input,   // padded, in_pitch floats per row
                       __constant float* filter,      // F x F, row-major
                       __global float* output,        // out_width x out_height
                       const int in_pitch,
                       const int out_width,
                       const int out_height,
                       __local float* tile,           // tile_width x tile_height
                       const int tile_width,          // work-group width + F - 1, to a multiple of 4
                       const int tile_height) {       // work-group height + F - 1
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);

  // Copy the tile and its halo. The tile is larger than the work-group, so
  // each work-item loads several float4s, striding by the work-group size.
  const int tile_x = get_group_id(0) * get_local_size(0);
  const int tile_y = get_group_id(1) * get_local_size(1);
  for (int ty = ly; ty < tile_height; ty += get_local_size(1)) {
    for (int tx = 4 * lx; tx < tile_width; tx += 4 * get_local_size(0)) {
      const int i = (tile_y + ty) * in_pitch + (tile_x + tx);
#if defined(SCALAR_LOADS)
      tile[ty * tile_width + tx] = input[i];      // the same bytes, four loads
      tile[ty * tile_width + tx + 1] = input[i + 1];
      tile[ty * tile_width + tx + 2] = input[i + 2];
      tile[ty * tile_width + tx + 3] = input[i + 3];
#elif defined(ALIGNED_PITCH)
      vstore4(*(__global const float4*)(input + i), 0, tile + ty * tile_width + tx);
#else
      vstore4(vload4(0, input + i), 0, tile + ty * tile_width + tx);  // any alignment
#endif
    }
  }
  // Every work-item of the group must arrive here before any reads the tile,
  // so the range guard comes after the barrier, never before it.
  barrier(CLK_LOCAL_MEM_FENCE);

  // The global size was rounded up to a multiple of the work-group, so the
  // last groups have work-items past the image: they must do nothing.
  if (x >= out_width || y >= out_height) return;

#define F FILTER_WIDTH  // always a constant here: the compiler unrolls both loops
  float sum = 0.0f;
#pragma unroll
  for (int r = 0; r < F; r++) {
    const int f = r * F;                          // first weight of filter row r
    const int t = (ly + r) * tile_width + lx;     // first tile pixel under it
#pragma unroll
    for (int c = 0; c < F; c++) {
      sum += filter[f + c] * tile[t + c];
    }
  }
  output[y * out_width + x] = sum;
}
