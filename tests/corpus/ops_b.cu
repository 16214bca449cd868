// Second .cu that includes shared_ops.cuh (built with --earlier-binary ops_a's fatbin): saxpy
// and fill<float> are ops_a's; fill<int>, which only this .cu instantiates, is bound here.
#include "shared_ops.cuh"

/** b's own kernel. */
__global__ void scale(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= s;
}

void run_b(float *x, int *k, int n) {
  saxpy<<<(n + 255) / 256, 256>>>(3.0f, x, x, n);
  fill<<<(n + 255) / 256, 256>>>(x, 2.0f, n);
  fill<<<(n + 255) / 256, 256>>>(k, 7, n);
  scale<<<(n + 255) / 256, 256>>>(x, 0.5f, n);
}
