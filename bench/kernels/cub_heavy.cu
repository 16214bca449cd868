// cub_heavy.cu: a .cu as public CUDA code writes it with CUB (gen_time.sh): a block-level
// reduction kernel template instantiated twice, and a host wrapper around cub::DeviceReduce,
// whose kernels only nvcc's binary names. <cub/cub.cuh> pulls in thousands of headers.
#include <cub/cub.cuh>
#include <cubind/annotations.h>

/** Each block's sum of `in`, with cub::BlockReduce. */
template <int BLOCK>
__global__ void block_sums(CUBIND_IN_N(n) const float *in, CUBIND_OUT_N((n + BLOCK - 1) / BLOCK) float *sums, int n) {
  typedef cub::BlockReduce<float, BLOCK> Reduce;
  __shared__ typename Reduce::TempStorage storage;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  float sum = Reduce(storage).Sum(i < n ? in[i] : 0.0f);
  if (threadIdx.x == 0) sums[blockIdx.x] = sum;
}
template __global__ void block_sums<128>(const float *, float *, int);
template __global__ void block_sums<256>(const float *, float *, int);

/* The host side: CUB's device-wide sum (its kernels are in the fatbin). */
cudaError_t device_sum(const float *in, float *out, int n, void *scratch, size_t *bytes) {
  return cub::DeviceReduce::Sum(scratch, *bytes, in, out, n);
}
