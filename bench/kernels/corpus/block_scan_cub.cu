// An inclusive scan per block with CUB's BlockScan, a template over the item type.
#include <stdio.h>
#include <cub/cub.cuh>

template <typename T, int THREADS>
__global__ void block_scan(const T *in, T *out) {
  typedef cub::BlockScan<T, THREADS> scan_t;
  __shared__ typename scan_t::TempStorage storage;
  T v = in[blockIdx.x * THREADS + threadIdx.x];
  scan_t(storage).InclusiveSum(v, v);
  out[blockIdx.x * THREADS + threadIdx.x] = v;
}

template __global__ void block_scan<float, 128>(const float *, float *);
template __global__ void block_scan<int, 256>(const int *, int *);
