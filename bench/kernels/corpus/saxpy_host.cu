// A kernel and the host program that runs it, as in most tutorials.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

int main(void) {
  const int n = 1 << 20;
  float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
  float *dx, *dy;
  for (int i = 0; i < n; i++) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, dx, dy);
  cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", y[n - 1]);
  cudaFree(dx);
  cudaFree(dy);
  free(x);
  free(y);
  return 0;
}
