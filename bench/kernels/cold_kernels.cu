/*
 * cold_kernels.cu: the one kernel of the cold-start program (bench/cold_cubind.c). Kept in its
 * own module so the cold-start binary embeds and loads only this tiny fatbin, as a small real
 * program would. bench/cold_runtime.cu holds the same kernel for the <<<>>> version.
 */
#include <cubind/annotations.h>

/** c = a + b over n elements. */
extern "C" __global__ void vadd(CUBIND_IN_N(n) const float *a, CUBIND_IN_N(n) const float *b,
                                CUBIND_OUT_N(n) float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
