// libcu++'s complex numbers, span and mdspan in templates explicitly instantiated: a header mix
// no installed prelude holds.
#include <cuda/std/complex>
#include <cuda/std/span>
#include <cuda/std/mdspan>
template <class T>
__global__ void rotate(cuda::std::complex<T> *z, T angle, int n) {
  cuda::std::span<cuda::std::complex<T>> s(z, n);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s[i] *= cuda::std::polar(T(1), angle);
}
template <class T>
__global__ void transpose(T *out, const T *in, int rows, int cols) {
  cuda::std::mdspan<const T, cuda::std::dextents<int, 2>> a(in, rows, cols);
  int r = blockIdx.y, c = threadIdx.x;
  if (r < rows && c < cols) out[c * rows + r] = a(r, c);
}
template __global__ void rotate<float>(cuda::std::complex<float> *, float, int);
template __global__ void transpose<float>(float *, const float *, int, int);
template __global__ void transpose<double>(double *, const double *, int, int);
