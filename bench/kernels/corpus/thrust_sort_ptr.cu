// Thrust's sort on a raw device pointer wrapped in thrust::device_ptr: <thrust/sort.h> first,
// without <thrust/device_vector.h> or <thrust/execution_policy.h>.
#include <thrust/sort.h>
#include <thrust/device_ptr.h>

__global__ void scale_keys(float *keys, int n, float by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    keys[i] *= by;
}

void sort_scaled(float *keys, int n) {
  scale_keys<<<(n + 255) / 256, 256>>>(keys, n, 0.5f);
  thrust::device_ptr<float> begin(keys);
  thrust::sort(begin, begin + n);
}
