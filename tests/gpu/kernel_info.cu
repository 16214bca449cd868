// Per-kernel facts: a kernel with 1 KiB of static shared memory and __launch_bounds__(128).
#include <cubind/annotations.h>

/** sums[b] = the sum of the x elements of block b (blockDim.x <= 128). */
extern "C" __global__ void __launch_bounds__(128)
    block_sums(CUBIND_IN_N(n) const int *x, int n, CUBIND_OUT_N(blocks) long long *sums,
               int blocks) {
  __shared__ int s[256]; /* 1 KiB */
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0;
  __syncthreads();
  if (threadIdx.x == 0 && (int)blockIdx.x < blocks) {
    long long t = 0;
    for (unsigned j = 0; j < blockDim.x; j++) t += s[j];
    sums[blockIdx.x] = t;
  }
}
