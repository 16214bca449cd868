// vector_add: c = a + b over n floats, one thread per element; the grid may hold more threads
// than elements, so each thread checks its index.
#include <cubind/annotations.h>

extern "C" __global__ void vector_add(CUBIND_IN_N(n) const float *a, CUBIND_IN_N(n) const float *b,
                                      CUBIND_OUT_N(n) float *c, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
