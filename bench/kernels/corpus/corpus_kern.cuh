// Kernels kept in a header, as projects that share them between programs do.
#pragma once
#include <cub/cub.cuh>

template <int THREADS>
__global__ void histogram_block(const unsigned char *in, unsigned *bins) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += THREADS)
    local[b] = 0;
  __syncthreads();
  atomicAdd(&local[in[blockIdx.x * THREADS + threadIdx.x]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += THREADS)
    atomicAdd(&bins[b], local[b]);
}
