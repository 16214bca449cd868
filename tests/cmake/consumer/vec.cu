#include <cubind/annotations.h>
#include "vec_config.h"

/* VEC_T comes from COMPILE_OPTIONS -DVEC_T=float: cubind-gen must see it as nvcc does. */
/** Doubles the first n elements of a. */
extern "C" __global__ void doublify(CUBIND_INOUT_N(n) VEC_T *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= VEC_FACTOR;
}
