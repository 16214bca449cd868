// PyCUDA's ElementwiseKernel "a = (a*10+2) * ((b+2)*10-5) * 5" written out: a grid-stride loop,
// so that any grid covers any n.
#include <cubind/annotations.h>

extern "C" __global__ void elementwise(float *a, const float *b, int n)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    a[i] = (a[i] * 10 + 2) * ((b[i] + 2) * 10 - 5) * 5;
}
