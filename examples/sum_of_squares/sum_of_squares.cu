// Sum of squares: each thread adds up the squares of a grid-stride slice of `a`, the threads of
// a block combine their sums with atomicAdd in shared memory, and one atomicAdd per block adds
// the block's sum to *result (which must start at 0).
#include <cubind/annotations.h>

extern "C" __global__ void sum_of_squares(const float *a, int n, float *result)
{
  __shared__ float block_sum;
  if (threadIdx.x == 0) block_sum = 0.0f;
  __syncthreads();

  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += a[i] * a[i];
  atomicAdd(&block_sum, sum);
  __syncthreads();

  if (threadIdx.x == 0) atomicAdd(result, block_sum);
}
