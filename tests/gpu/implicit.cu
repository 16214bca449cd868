// Kernels written the way NVIDIA's public samples write them: templates that only the host code
// launching them instantiates (a reduction over three types and three block sizes picked in a
// switch, an elementwise kernel over an enum of operations), kernels in namespaces, and kernels
// behind __CUDA_ARCH__ guards. There is no explicit instantiation: add_gpu_kernels() binds every
// kernel of the fatbin nvcc built (cubind-gen --kernels-from).
#include <cubind/annotations.h>

namespace samples {

/** Per-block sums: out[b] = sum of in[b*BLOCK .. b*BLOCK+BLOCK) within n. */
template <typename T, unsigned BLOCK>
__global__ void block_sum(CUBIND_IN_N(n) const T *in,
                          CUBIND_OUT_N((n + BLOCK - 1) / BLOCK) T *out, int n) {
  __shared__ T partial[BLOCK];
  unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
  partial[t] = i < (unsigned)n ? in[i] : T(0);
  __syncthreads();
  for (unsigned stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

namespace detail {
enum class Op { Add, Mul };

/** a[i] = a[i] OP b[i]. */
template <Op OP, typename T>
__global__ void combine(CUBIND_INOUT_N(n) T *a, CUBIND_IN_N(n) const T *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = OP == Op::Add ? a[i] + b[i] : a[i] * b[i];
}
} // namespace detail

/** x[i] += 1. */
__global__ void increment(CUBIND_INOUT_N(n) float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

} // namespace samples

#if __CUDA_ARCH__ >= 900
/** Hopper and newer only: writes the __CUDA_ARCH__ its code was built for. */
__global__ void arch_probe_sm90(CUBIND_OUT_N(1) int *arch) { *arch = __CUDA_ARCH__; }
#else
/** Before Hopper only: writes the __CUDA_ARCH__ its code was built for. */
__global__ void arch_probe_pre_sm90(CUBIND_OUT_N(1) int *arch) { *arch = __CUDA_ARCH__; }
#endif

// Host code, as in the samples: the launches instantiate the templates. nvcc compiles it;
// programs using cubind never call it.
template <typename T>
void sum_blocks(const T *in, T *out, int n, unsigned threads) {
  switch (threads) {
  case 256: samples::block_sum<T, 256><<<(n + 255) / 256, 256>>>(in, out, n); break;
  case 128: samples::block_sum<T, 128><<<(n + 127) / 128, 128>>>(in, out, n); break;
  default: samples::block_sum<T, 64><<<(n + 63) / 64, 64>>>(in, out, n); break;
  }
}

void run_samples(float *f, double *d, int *i, int n, unsigned threads) {
  sum_blocks(f, f, n, threads);
  sum_blocks(d, d, n, threads);
  sum_blocks(i, i, n, threads);
  samples::detail::combine<samples::detail::Op::Add><<<(n + 255) / 256, 256>>>(f, f, n);
  samples::detail::combine<samples::detail::Op::Mul, double><<<(n + 255) / 256, 256>>>(d, d, n);
}
