// PyCUDA's tutorial "Advanced Topics: Structures": each block doubles the array that one
// DoubleOperation points to.
#include <cubind/annotations.h>

struct DoubleOperation {
  int datalen, padding; // so 64-bit pointers can be aligned
  float *ptr;
};

extern "C" __global__ void double_array(DoubleOperation *a)
{
  a = &a[blockIdx.x];
  for (int idx = threadIdx.x; idx < a->datalen; idx += blockDim.x)
    a->ptr[idx] *= 2;
}
