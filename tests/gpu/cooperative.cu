// A cooperative launch: a grid-wide sum with cooperative_groups::this_grid().sync() between
// the per-block partial sums and the final one.
#include <cubind/annotations.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/** *total = sum of x[0..n); partial: gridDim.x device longs; blockDim.x must be 256. */
extern "C" __global__ void grid_sum(CUBIND_IN_N(n) const int *x, int n, long long *partial,
                                    CUBIND_OUT_N(1) long long *total) {
  __shared__ long long s[256];
  cg::grid_group grid = cg::this_grid();
  long long acc = 0;
  for (long long i = (long long)grid.thread_rank(); i < n; i += (long long)grid.size())
    acc += x[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned step = blockDim.x / 2; step > 0; step >>= 1) {
    if (threadIdx.x < step) s[threadIdx.x] += s[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  if (grid.thread_rank() == 0) {
    long long t = 0;
    for (unsigned b = 0; b < gridDim.x; b++) t += partial[b];
    *total = t;
  }
}
