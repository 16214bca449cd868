// Built for sm_75 only (tests/gpu/CMakeLists.txt): on any other GPU its load must fail with
// "no code for this architecture", never run something else.
#include <cubind/annotations.h>

extern "C" __global__ void sass_only(CUBIND_OUT_N(n) int *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}
