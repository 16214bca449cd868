// Kernels in a header that two .cu files of one library include (ops_a.cu, ops_b.cu): each kernel
// is bound once for the library, by the first .cu whose binary holds it.
#pragma once

/** y[i] = a * x[i] + y[i]. */
__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

/** out[i] = value. */
template <typename T>
__global__ void fill(T *out, T value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = value;
}

/** Only declared here: a .cu with relocatable device code defines it elsewhere. */
__global__ void defined_elsewhere(float *out);
