// Code as real programs write it (issue 13): kernels in a header, a static kernel, a kernel in
// an anonymous namespace, a parameter named cfg, FP8 values, the runtime's structs by value
// (cudaPitchedPtr, cudaExtent), __half2 by value, a tag type parameter, arrays of arrays, a
// parameter pack, a record holding __half2, a __managed__ variable; each run on the GPU by
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

/** C[r][c] = A[r][c] + B[r][c] over rows of 16 (the Programming Guide's MatAdd, by rows). */
__global__ void mat_add_rows(CUBIND_IN_N(rows) const float A[][16],
                             CUBIND_IN_N(rows) const float (*B)[16],
                             CUBIND_OUT_N(rows) float C[][16], int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * 16)
    C[i / 16][i % 16] = A[i / 16][i % 16] + B[i / 16][i % 16];
}

/** out[i] = the sum of every part's [i]: a parameter pack, one pointer per element. */
template <typename... Parts> __global__ void sum_parts(float *out, int n, Parts... parts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = (0.0f + ... + parts[i]);
}

/** A record holding a toolkit value with a copy constructor of its own (__half2). */
struct half2_affine {
  __half2 scale;
  int shift;
};

/** x[i] = x[i] * p.scale + p.shift, elementwise on __half2 pairs. */
__global__ void affine_h2(half2_affine p, CUBIND_INOUT_N(n) __half2 *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = __hadd2(__hmul2(x[i], p.scale), __float2half2_rn((float)p.shift));
}

/** A __managed__ counter (no __device__ written): add_to_total adds n to it. */
__managed__ int managed_total;
__global__ void add_to_total(int n) { atomicAdd(&managed_total, n); }

// Host code that instantiates the templates and names every kernel (as a program would).
void launch_all(float *f, double *d, int *k, int n) {
  header_saxpy<<<1, 1>>>(1.0f, f, f, n);
  header_scale<<<1, 1>>>(f, 2.0f, n);
  header_scale<<<1, 1>>>(d, 2.0, n);
  static_square<<<1, 1>>>(f, n);
  anonymous_iota<<<1, 1>>>(k, 0, n);
  times_tag<<<1, 1>>>(std::integral_constant<int, 3>(), f, f, n);
  sum_parts<<<1, 1>>>(f, n, f, (const float *)f);
}
