// PyCUDA's tutorial "Abstracting Away the Complications": the same kernel, with the host
// buffers' directions annotated, so that doublify_call copies them like cuda.InOut / In / Out.
#include <cubind/annotations.h>

extern "C" __global__ void doublify(CUBIND_INOUT float *a)
{
  int idx = threadIdx.x + threadIdx.y * 4;
  a[idx] *= 2;
}

// The In + Out variant: the input stays as it is, the result goes into a second array.
extern "C" __global__ void doublify_into(CUBIND_IN const float *a, CUBIND_OUT float *b)
{
  int idx = threadIdx.x + threadIdx.y * 4;
  b[idx] = 2 * a[idx];
}
