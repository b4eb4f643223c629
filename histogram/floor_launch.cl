// Not a histogram: a kernel with local-atomic's arguments that does nothing.
// Run in local-atomic's place (bench/histogram.sh does), it measures what
// every run of the local variants pays before it reads a byte: the fill that
// zeroes the result and the launch of the work-groups.
//   build/bin/histogram --variant local-atomic --kernel histogram/floor_launch.cl

__kernel void count(__global const uchar* rgb, const uint pixels, const uint chunk,
                    __global uint* histogram) {}
