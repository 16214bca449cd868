// Thrust's function objects and iterators in host code beside a plain kernel: light Thrust
// headers only (no algorithm, no CUDA backend).
#include <cstdio>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>

__global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

int checksum(int n) {
  thrust::plus<int> add;
  thrust::counting_iterator<int> it(0);
  int sum = 0;
  for (int i = 0; i < n; i++)
    sum = add(sum, it[i]);
  std::printf("%d\n", sum);
  return sum;
}
