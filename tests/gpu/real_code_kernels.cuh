// Kernels in a user header that real_code.cu includes (issue 13): bound like the .cu's own.
#pragma once
#include <cubind/annotations.h>

/** y[i] = a * x[i] + y[i], defined in a header. */
__global__ void header_saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

/** x[i] *= s, a header template only the .cu's host code instantiates. */
template <typename T>
__global__ void header_scale(CUBIND_INOUT_N(n) T *x, T s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= s;
}
