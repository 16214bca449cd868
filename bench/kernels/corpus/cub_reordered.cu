// The headers of block_sum_cub.cu and more, in another order.
#include <vector>
#include <cstdio>
#include <cub/cub.cuh>
#include <algorithm>

__global__ void block_min(const int *in, int *out) {
  typedef cub::BlockReduce<int, 128> reduce_t;
  __shared__ typename reduce_t::TempStorage storage;
  int m = reduce_t(storage).Reduce(in[blockIdx.x * 128 + threadIdx.x], ::cuda::minimum<>());
  if (threadIdx.x == 0)
    out[blockIdx.x] = m;
}
