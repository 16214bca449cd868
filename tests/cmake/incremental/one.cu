#include <cubind/annotations.h>
#include "one.cuh"

extern "C" __global__ void one(CUBIND_INOUT_N(n) float *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= ONE_FACTOR;
}
