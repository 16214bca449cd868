#include <cubind/annotations.h>

extern "C" __global__ void two(CUBIND_INOUT_N(n) float *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 2.0f;
}
