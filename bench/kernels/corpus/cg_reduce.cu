// A grid-stride sum with cooperative groups' tile reduction.
#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void tile_sum(const float *in, float *out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    v += in[i];
  v = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0)
    atomicAdd(out, v);
}
