// Built for sm_75 with PTX (tests/gpu/CMakeLists.txt): newer GPUs JIT-compile the PTX.
#include <cubind/annotations.h>

extern "C" __global__ void from_ptx(CUBIND_OUT_N(n) int *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i;
}
