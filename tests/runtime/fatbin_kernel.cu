// fatbin_kernel.cu: one kernel, compiled by nvcc into the fatbins test_fatbin_format.c reads.
extern "C" __global__ void twice(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= 2.0f;
}
