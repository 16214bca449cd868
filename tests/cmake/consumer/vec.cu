#include <cubind/annotations.h>

/** Doubles the first n elements of a. */
extern "C" __global__ void doublify(CUBIND_INOUT_N(n) float *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= 2.0f;
}
