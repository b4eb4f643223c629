// Exercise, step 3 (docs/step3-local.md, docs/coursework.md). Write the body
// of convolve() below. As handed out, this file builds but computes nothing,
// so every conformance case of step 3 fails. Work on a copy in the repository
// root and grade the copy:
//   cp docs/exercises/step3-local.cl my-step3.cl
//   CLCONV_KERNEL_STEP3=$PWD/my-step3.cl ctest --preset default -L step3
//
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
  // TODO
  // 1. Global ids (x, y) and local ids (lx, ly) of this work-item.
  // 2. The group's window starts at input column group_id(0) * local_size(0)
  //    and row group_id(1) * local_size(1). Copy its tile_width x tile_height
  //    floats into `tile`. The window is larger than the group, so every
  //    work-item copies several floats: loop over rows from ly and columns
  //    from lx, striding by the local sizes. The padded input is
  //    (out_width + F - 1) x (out_height + F - 1); groups at the right and
  //    bottom edges must skip what lies past it.
  // 3. barrier(CLK_LOCAL_MEM_FENCE): every work-item of the group, including
  //    those past the image, has to reach it.
  // 4. Only now: work-items past out_width x out_height return.
  // 5. Correlate from the tile: window top-left at tile (lx, ly), rows
  //    tile_width floats apart. Store the sum at output[y][x].
  // The test filter widths go up to 31 with 8x8 work-groups: the copy must
  // not assume that the halo is narrower than the group.
}
