// Templated block reductions with explicit instantiations (the CUDA samples' reduction and
// PyTorch-style functors), and a kernel whose template is only instantiated implicitly.
#include <stdint.h>
#include <cubind/annotations.h>

template <typename T> struct Sum {
  __device__ T operator()(T a, T b) const { return a + b; }
  static __device__ T identity() { return T(0); }
};
template <typename T> struct Max {
  __device__ T operator()(T a, T b) const { return a > b ? a : b; }
  static __device__ T identity() { return T(-1e30); }
};

template <typename T, typename Op, unsigned BLOCK>
__device__ T block_reduce(T v, Op op) {
  __shared__ T shared[BLOCK];
  shared[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shared[threadIdx.x] = op(shared[threadIdx.x], shared[threadIdx.x + s]);
    __syncthreads();
  }
  return shared[0];
}

/** Grid-stride reduction of n values into one partial per block. */
template <typename T, unsigned BLOCK>
__global__ void reduce_sum(const T *__restrict__ in, T *__restrict__ partial, size_t n) {
  T v = Sum<T>::identity();
  for (size_t i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * BLOCK)
    v += in[i];
  v = block_reduce<T, Sum<T>, BLOCK>(v, Sum<T>());
  if (threadIdx.x == 0) partial[blockIdx.x] = v;
}
template __global__ void reduce_sum<float, 256>(const float *, float *, size_t);
template __global__ void reduce_sum<double, 256>(const double *, double *, size_t);
template __global__ void reduce_sum<int, 128>(const int *, int *, size_t);

/** Per-row maximum, any reduction functor. */
template <typename T, typename Op>
__global__ void row_reduce(const T *__restrict__ in, T *__restrict__ out, int cols) {
  Op op;
  T v = Op::identity();
  for (int i = threadIdx.x; i < cols; i += blockDim.x) v = op(v, in[(size_t)blockIdx.x * cols + i]);
  v = block_reduce<T, Op, 256>(v, op);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
template __global__ void row_reduce<float, Max<float>>(const float *, float *, int);
template __global__ void row_reduce<float, Sum<float>>(const float *, float *, int);

/** Histogram with shared-memory atomics. */
template <int BINS>
__global__ void histogram(CUBIND_IN_N(n) const uint8_t *data, CUBIND_OUT_N(BINS_OUT) unsigned *bins,
                          int n, int BINS_OUT) {
  __shared__ unsigned local[BINS];
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i] % BINS], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}
template __global__ void histogram<256>(const uint8_t *, unsigned *, int, int);

/** Only instantiated implicitly, by the launch below: out of scope (issue 8), warned about. */
template <typename T> __global__ void scale_implicit(T *x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
void launch_scale(float *x, int n) { scale_implicit<<<(n + 255) / 256, 256>>>(x, 2.0f, n); }
