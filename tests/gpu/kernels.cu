// Kernels for the GPU integration tests: one per parameter type the generated stubs must pass
// correctly (float, double, int through a template, __half, float4 after an int, which needs
// 16-byte alignment in the parameter buffer), plus a kernel that faults and one to misconfigure.
#include <cubind/annotations.h>
#include <cuda_fp16.h>

/** y = a * x + y over n elements. */
template <typename T>
__global__ void axpy(T a, CUBIND_IN_N(n) const T *x, CUBIND_INOUT_N(n) T *y, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
template __global__ void axpy<float>(float, const float *, float *, int);
template __global__ void axpy<double>(double, const double *, double *, int);
template __global__ void axpy<int>(int, const int *, int *, int);

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
