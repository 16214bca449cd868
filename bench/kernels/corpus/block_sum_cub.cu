// A block-wide sum with CUB, its block size a template argument chosen by the host.
#include <iostream>
#include <vector>
#include <cub/cub.cuh>

template <int BLOCK>
__global__ void block_sums(const int *in, int *out, int n) {
  typedef cub::BlockReduce<int, BLOCK> reduce_t;
  __shared__ typename reduce_t::TempStorage storage;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  int sum = reduce_t(storage).Sum(i < n ? in[i] : 0);
  if (threadIdx.x == 0)
    out[blockIdx.x] = sum;
}

int main() {
  std::vector<int> host(4096, 1);
  int *in, *out;
  cudaMalloc(&in, host.size() * sizeof(int));
  cudaMalloc(&out, 16 * sizeof(int));
  cudaMemcpy(in, host.data(), host.size() * sizeof(int), cudaMemcpyHostToDevice);
  block_sums<256><<<16, 256>>>(in, out, (int)host.size());
  int first = 0;
  cudaMemcpy(&first, out, sizeof(int), cudaMemcpyDeviceToHost);
  std::cout << first << std::endl;
  return 0;
}
