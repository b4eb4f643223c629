// Not a histogram: a kernel with local-atomic's arguments that reads the
// group's share of the image, 16 bytes at a time, and counts nothing. Run in
// local-atomic's place (bench/histogram.sh does), it measures the fastest a
// kernel that reads the whole image can be, timed exactly like the variants.
//   build/bin/histogram --variant local-atomic --kernel histogram/floor_read.cl

__kernel void count(__global const uchar* rgb, const uint pixels, const uint chunk,
                    __global uint* histogram) {
  const uint lid = get_local_id(0);
  const uint size = get_local_size(0);
  const size_t first = (size_t)get_group_id(0) * chunk * size * 3;  // bytes
  const size_t last = min(first + (size_t)chunk * size * 3, (size_t)pixels * 3);
  const size_t first_vec = (first + 15) / 16;
  const size_t end_vec = max(first_vec, last / 16);
  __global const uint4* vecs = (__global const uint4*)rgb;
  uint4 x = 0;
  for (size_t v = first_vec + lid; v < end_vec; v += size) x ^= vecs[v];
  for (size_t i = first + lid; i < min(16 * first_vec, last); i += size) x.x ^= rgb[i];
  for (size_t i = 16 * end_vec + lid; i < last; i += size) x.x ^= rgb[i];
  // A store that depends on every byte read (and almost never happens), so
  // that the compiler cannot drop the loads.
  if ((x.x ^ x.y ^ x.z ^ x.w) == 0x9e3779b9u) histogram[0] = x.x;
}
