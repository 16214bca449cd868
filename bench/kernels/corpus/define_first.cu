// A block size defined before the includes, as many samples do.
#define BLOCK 256
#include <stdio.h>
#include <cub/cub.cuh>

__global__ void warp_max(const float *in, float *out) {
  typedef cub::WarpReduce<float> warp_t;
  __shared__ typename warp_t::TempStorage storage[BLOCK / 32];
  float v = in[blockIdx.x * BLOCK + threadIdx.x];
  float m = warp_t(storage[threadIdx.x / 32]).Reduce(v, ::cuda::maximum<>());
  if (threadIdx.x % 32 == 0)
    out[blockIdx.x * (BLOCK / 32) + threadIdx.x / 32] = m;
}
