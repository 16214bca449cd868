// Half-precision dot products, cooperative groups for the warp sum.
#include <cooperative_groups.h>
#include <cuda_fp16.h>

namespace cg = cooperative_groups;

__global__ void dot_half(const __half2 *a, const __half2 *b, float *out, int n) {
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float2 p = __half22float2(__hmul2(a[i], b[i]));
    sum += p.x + p.y;
  }
  for (int offset = 16; offset > 0; offset /= 2)
    sum += warp.shfl_down(sum, offset);
  if (warp.thread_rank() == 0)
    atomicAdd(out, sum);
}
