// Kernels for the GPU integration tests: one per parameter type the generated stubs must pass
// correctly (float, double, int, __half, float4 after an int, which needs
// 16-byte alignment in the parameter buffer), plus a kernel that faults and one to misconfigure.
#include <cubind/annotations.h>
#include <cuda_fp16.h>

// y = a * x + y over n elements, one extern "C" kernel per type (templates.cu covers
// template kernels).
template <typename T>
__device__ void axpy(T a, const T *x, T *y, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void axpy_float(float a, CUBIND_IN_N(n) const float *x,
                                      CUBIND_INOUT_N(n) float *y, int n) { axpy(a, x, y, n); }
extern "C" __global__ void axpy_double(double a, CUBIND_IN_N(n) const double *x,
                                       CUBIND_INOUT_N(n) double *y, int n) { axpy(a, x, y, n); }
extern "C" __global__ void axpy_int(int a, CUBIND_IN_N(n) const int *x,
                                    CUBIND_INOUT_N(n) int *y, int n) { axpy(a, x, y, n); }

/** x = s * x over n halves. */
extern "C" __global__ void scale_half(__half s, CUBIND_INOUT_N(n) __half *x, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __hmul(s, x[i]);
}

/** v += d over n float4s; d sits at offset 16 of the parameter buffer, after n. */
extern "C" __global__ void add_float4(int n, float4 d, CUBIND_INOUT_N(n) float4 *v)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    v[i].x += d.x;
    v[i].y += d.y;
    v[i].z += d.z;
    v[i].w += d.w;
  }
}

/** out[i] = value for i < n. */
extern "C" __global__ void fill(CUBIND_OUT_N(n) int *out, int value, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

/** Writes through a pointer that is not device memory: an illegal address. */
extern "C" __global__ void write_to_bad_address(float *p)
{
  *p = 1.0f;
}
