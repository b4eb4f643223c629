// Exercise, step 4 (docs/step4-unroll.md, docs/coursework.md). Write the body
// of convolve() below. As handed out, this file builds but computes nothing,
// so every conformance case of step 4 fails. The suite runs all three
// variants, so all three branches below must be filled in. Work on a copy in
// the repository root and grade the copy:
//   cp docs/exercises/step4-unroll.cl my-step4.cl
//   CLCONV_KERNEL_STEP4=$PWD/my-step4.cl ctest --preset default -L step4
//
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
  // TODO 1-4, as in step 3: ids; copy the tile and its halo (strided loops,
  // skipping what lies past the padded input); barrier; then the range guard.

#ifdef FILTER_WIDTH
#define F FILTER_WIDTH  // a constant: the compiler can unroll both loops
#else
#define F filter_width
#endif
  // TODO 5. For each filter row r (weights from filter[r * F], tile pixels
  // from tile[(ly + r) * tile_width + lx]) add the row's F products to the
  // sum, with one whole inner loop per variant:
#if defined(FILTER_WIDTH)
  //   fixed: a plain loop over the F columns; F is a constant here, so
  //   "#pragma unroll" before both loops lets the compiler unroll them.
#elif defined(REMAINDER_IFELSE)
  //   ifelse: four products per iteration while four columns are left,
  //   then no loop: an if-else chain on how many are left (3, 2 or 1).
#else
  //   loop4: four products per iteration while four columns are left,
  //   then a second loop over the leftover F % 4 columns (zero to three
  //   iterations).
#endif
  // TODO 6. Store the sum at output[y][x] (rows out_width floats apart).
}
