// Code as real programs write it (issue 13): kernels in a header, a static kernel, a kernel in
// an anonymous namespace, a parameter named cfg, FP8 values, the runtime's structs by value
// (cudaPitchedPtr, cudaExtent), __half2 by value, a tag type parameter; each run on the GPU by
// real_code.c against a CPU reference.
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <type_traits>

#include "real_code_kernels.cuh"

/** x[i] = x[i] * x[i], of internal linkage. */
static __global__ void static_square(CUBIND_INOUT_N(n) float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] * x[i];
}

/** x[i] += cfg: a parameter named like the stubs' configuration argument. */
__global__ void offset_by_cfg(float cfg, CUBIND_INOUT_N(n) float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += cfg;
}

/** out[i] = in[i] * s, FP8 (e4m3) values by value and by pointer: C passes their bits. */
__global__ void scale_fp8(__nv_fp8_e4m3 s, CUBIND_IN_N(n) const __nv_fp8_e4m3 *in,
                          CUBIND_OUT_N(n) float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = (float)in[i] * (float)s;
}

namespace {
/** out[i] = i + offset, in an anonymous namespace. */
__global__ void anonymous_iota(CUBIND_OUT_N(n) int *out, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = i + offset;
}
}

/** Fills a pitched 3D block: p[z][y][x] = base + x + 1000 * y + 1000000 * z. */
__global__ void fill_pitched(cudaPitchedPtr p, cudaExtent extent, float base) {
  size_t x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= extent.width)
    return;
  for (size_t z = 0; z < extent.depth; z++)
    for (size_t y = 0; y < extent.height; y++) {
      float *row = (float *)((char *)p.ptr + (z * p.ysize + y) * p.pitch);
      row[x] = base + (float)x + 1000.0f * (float)y + 1000000.0f * (float)z;
    }
}

/** x[i] = x[i] * s + t, elementwise on __half2 pairs. */
__global__ void fma_half2(__half2 s, __half2 t, CUBIND_INOUT_N(n) __half2 *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = __hfma2(x[i], s, t);
}

/** out[i] = N * in[i]: the tag's value is in the type, C passes nothing for it. */
template <int N>
__global__ void times_tag(std::integral_constant<int, N>, CUBIND_IN_N(n) const float *in,
                          CUBIND_OUT_N(n) float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = N * in[i];
}

// Host code that instantiates the templates and names every kernel (as a program would).
void launch_all(float *f, double *d, int *k, int n) {
  header_saxpy<<<1, 1>>>(1.0f, f, f, n);
  header_scale<<<1, 1>>>(f, 2.0f, n);
  header_scale<<<1, 1>>>(d, 2.0, n);
  static_square<<<1, 1>>>(f, n);
  anonymous_iota<<<1, 1>>>(k, 0, n);
  times_tag<<<1, 1>>>(std::integral_constant<int, 3>(), f, f, n);
}
