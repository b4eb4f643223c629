// Not a histogram: a kernel with loads-ahead's arguments that does nothing.
// Run in loads-ahead's place (bench/histogram.sh does), it measures what the
// profiling events give one launch of its groups, with no fill before it.
//   build/bin/histogram --variant loads-ahead --kernel histogram/floor_ahead_empty.cl

__kernel void count(__global const uchar* rgb, const uint pixels, const uint chunk,
                    __global uint* sums, __global uint* histogram) {}
