// Thrust's algorithms on raw device pointers with the thrust::device policy (no device_vector),
// and a kernel that fills the keys.
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>

__global__ void fill_keys(unsigned *keys, int n, unsigned seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    keys[i] = (i * 2654435761u) ^ seed;
}

unsigned sort_and_sum(unsigned *keys, int n) {
  fill_keys<<<(n + 127) / 128, 128>>>(keys, n, 17u);
  thrust::sort(thrust::device, keys, keys + n);
  return thrust::reduce(thrust::device, keys, keys + n, 0u);
}
