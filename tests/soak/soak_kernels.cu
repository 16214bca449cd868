// Kernels of the soak test (tests/soak/soak.c).
#include <cubind/annotations.h>

/** y[i] += a * x[i]: exact in float for the small integers the soak uses. */
extern "C" __global__ void soak_axpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

/** v[i] = v[i] * 3 + add + i (mod 2^32), through _call: copied in and back. */
extern "C" __global__ void soak_mix(CUBIND_INOUT_N(n) unsigned *v, unsigned add, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * 3u + add + (unsigned)i;
}
