// PyCUDA's tutorial kernel: double each element of a 4x4 float array, one thread per element.
#include <cubind/annotations.h>

extern "C" __global__ void doublify(float *a)
{
  int idx = threadIdx.x + threadIdx.y * 4;
  a[idx] *= 2;
}
