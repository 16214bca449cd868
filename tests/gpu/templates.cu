// C++ template kernels: each explicit instantiation gets its own pair of C functions, named from
// the kernel and its template arguments (scale<float> -> scale_float_launch / scale_float_call).
#include <cubind/annotations.h>

/** x = s * x over n elements. */
template <typename T>
__global__ void scale(T s, CUBIND_INOUT_N(n) T *x, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}
template __global__ void scale<float>(float, float *, int);
template __global__ void scale<double>(double, double *, int);
template __global__ void scale<int>(int, int *, int);
