// coop_groups.cu: a .cu as public CUDA code writes it with cooperative groups (gen_time.sh): its
// leading toolkit headers (<cuda_runtime.h>, which clang's CUDA headers already include, then
// <cooperative_groups.h>, ~0.35 s of parsing) make a list of its own, so in a build tree that has
// built other files it is the first .cu with that list (gen_time's "new key" column).
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cubind/annotations.h>

namespace cg = cooperative_groups;

/** out[blockIdx.x] = the sum of the block's 256 elements of `in` (0 past n), by tiles of 32. */
extern "C" __global__ void tile_sums(CUBIND_IN_N(n) const float *in,
                                     CUBIND_OUT_N((n + 255) / 256) float *out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  __shared__ float partial[8];
  int i = blockIdx.x * 256 + (int)block.thread_rank();
  float value = i < n ? in[i] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2)
    value += tile.shfl_down(value, offset);
  if (tile.thread_rank() == 0)
    partial[tile.meta_group_rank()] = value;
  block.sync();
  if (block.thread_rank() == 0) {
    float sum = 0.0f;
    for (int t = 0; t < 8; t++)
      sum += partial[t];
    out[blockIdx.x] = sum;
  }
}
