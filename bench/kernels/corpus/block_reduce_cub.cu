// A block-level CUB reduction in a kernel, the block size a template parameter, as kernels that
// include one CUB primitive rather than <cub/cub.cuh> are written.
#include <cstdio>
#include <cub/block/block_reduce.cuh>

template <int BLOCK>
__global__ void block_max(const float *in, float *out, int n) {
  using reduce_t = cub::BlockReduce<float, BLOCK>;
  __shared__ typename reduce_t::TempStorage temp;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  float v = i < n ? in[i] : -1e30f;
  float m = reduce_t(temp).Reduce(v, cuda::maximum<>{});
  if (threadIdx.x == 0)
    out[blockIdx.x] = m;
}

void launch_block_max(const float *in, float *out, int n, cudaStream_t stream) {
  block_max<256><<<(n + 255) / 256, 256, 0, stream>>>(in, out, n);
  if (cudaGetLastError() != cudaSuccess)
    fprintf(stderr, "block_max failed\n");
}
