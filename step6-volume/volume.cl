// Step 6 in 3D: a uchar volume correlated with BANK filters of F x F x F at
// once, giving BANK float results per voxel (pixel-major, one floatBANK
// each). Only the "valid" region is computed: output voxel (x, y, z)
// is the window whose corner is input voxel (x, y, z), so the output is
// (W - F + 1) x (H - F + 1) x (D - F + 1) and needs no border logic.
//
// Two kernels, the before and after of register blocking:
//   volume_naive    one work-item per output voxel; every input value it
//                   loads feeds BANK multiply-adds;
//   volume_blocked  one work-item per BLOCK_X voxels of a row; it loads the
//                   BLOCK_X + F - 1 input values under each filter row once
//                   and each feeds up to BLOCK_X * BANK multiply-adds.
// F, BANK and BLOCK_X are compile-time constants (-D FILTER_WIDTH, -D BANK,
// -D BLOCK_X), so the loops over them unroll and the sums stay in registers.

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#if BANK == 1
typedef float weights_t;
#else
typedef XCAT(float, BANK) weights_t;              // float4 for BANK 4, ...
#endif
// Stores the BANK sums of pixel i as one aligned vector. (vstoreBANK would
// promise only float alignment, and a GPU then writes BANK scalars.)
#define STORE_SUM(v, i, p) (((__global weights_t*)(p))[i] = (v))
#define F FILTER_WIDTH

__kernel void volume_naive(__global const uchar* input,   // in_pitch x in_rows x depth
                           __constant weights_t* filter,  // F x F x F, x fastest, BANK each
                           __global float* output,        // out_pitch x out_rows x out_depth x BANK
                           const int in_pitch, const int in_slice,    // voxels per row, per slice
                           const int out_pitch, const int out_slice,
                           const int out_width, const int out_height, const int out_depth) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  const int z = get_global_id(2);
  if (x >= out_width || y >= out_height || z >= out_depth) return;
  weights_t sum = (weights_t)(0.0f);
  for (int dz = 0; dz < F; dz++) {
    for (int dy = 0; dy < F; dy++) {
      const int i = (z + dz) * in_slice + (y + dy) * in_pitch + x;
#pragma unroll
      for (int dx = 0; dx < F; dx++) sum += filter[(dz * F + dy) * F + dx] * (float)input[i + dx];
    }
  }
  STORE_SUM(sum, z * out_slice + y * out_pitch + x, output);
}

// The host makes out_pitch a multiple of BLOCK_X and in_pitch at least
// out_pitch + F - 1 (zero-filled), so a block that starts inside a row
// never leaves the buffers, and one guard, as volume_naive's, does.
__kernel void volume_blocked(__global const uchar* input,
                             __constant weights_t* filter,
                             __global float* output,
                             const int in_pitch, const int in_slice,
                             const int out_pitch, const int out_slice,
                             const int out_width, const int out_height, const int out_depth) {
  const int x = get_global_id(0) * BLOCK_X;
  const int y = get_global_id(1);
  const int z = get_global_id(2);
  if (x >= out_width || y >= out_height || z >= out_depth) return;
  weights_t sum[BLOCK_X];
#pragma unroll
  for (int bx = 0; bx < BLOCK_X; bx++) sum[bx] = (weights_t)(0.0f);
  for (int dz = 0; dz < F; dz++) {
    for (int dy = 0; dy < F; dy++) {
      const int i = (z + dz) * in_slice + (y + dy) * in_pitch + x;
      float row[BLOCK_X + F - 1];  // every input value under this filter row, loaded once
#pragma unroll
      for (int k = 0; k < BLOCK_X + F - 1; k++) row[k] = (float)input[i + k];
#pragma unroll
      for (int dx = 0; dx < F; dx++) {
        const weights_t w = filter[(dz * F + dy) * F + dx];
#pragma unroll
        for (int bx = 0; bx < BLOCK_X; bx++) sum[bx] += w * row[bx + dx];
      }
    }
  }
#pragma unroll
  for (int bx = 0; bx < BLOCK_X; bx++) STORE_SUM(sum[bx], z * out_slice + y * out_pitch + x + bx, output);
}
