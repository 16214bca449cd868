// Kernels that call device code defined in device_math.cu (extern __device__): bound like any
// other, from the .cu that defines them.
#include <cubind/annotations.h>

extern __device__ float poly(float x);
extern __device__ unsigned int poly_calls;

/** y[i] = poly(x[i]) for i < n; counts the calls in device_math.cu's poly_calls. */
extern "C" __global__ void apply_poly(CUBIND_IN_N(n) const float *x, CUBIND_OUT_N(n) float *y,
                                      int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = poly(x[i]);
    atomicAdd(&poly_calls, 1u);
  }
}

/** The same through a template, instantiated for float and double by the host code below. */
template <typename T>
__global__ void apply_poly_as(CUBIND_IN_N(n) const T *x, CUBIND_OUT_N(n) T *y, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (T)poly((float)x[i]);
}
void instantiate(const float *xf, float *yf, const double *xd, double *yd, int n)
{
  apply_poly_as<<<1, 1>>>(xf, yf, n);
  apply_poly_as<<<1, 1>>>(xd, yd, n);
}

/** A static kernel: relocatable code names it __nv_static_<file tag>_... (bound from the binary). */
static __global__ void scale_static(CUBIND_INOUT_N(n) float *y, float s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = s * poly(y[i]);
}
namespace {
/** The same in an anonymous namespace. */
__global__ void scale_anonymous(CUBIND_INOUT_N(n) float *y, float s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = s * poly(y[i]);
}
} // namespace
void launch_internal(float *y, int n)
{
  scale_static<<<1, 1>>>(y, 2.0f, n);
  scale_anonymous<<<1, 1>>>(y, 2.0f, n);
}
