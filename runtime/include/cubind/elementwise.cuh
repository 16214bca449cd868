/*
 * elementwise.cuh: kernels without writing a kernel (PyCUDA's ElementwiseKernel and
 * ReductionKernel, numba's @vectorize), compiled ahead of time. Plain CUDA C++: nvcc compiles it
 * alone, and cubind-gen binds what it expands to like any kernel.
 *
 *   CUBIND_ELEMENTWISE(lin_comb, (float a, CUBIND_IN const float *x, float b,
 *                                 CUBIND_IN const float *y, CUBIND_OUT float *z),
 *                      { z[i] = a * x[i] + b * y[i]; })
 *     extern "C" __global__ void lin_comb(<the parameters>, size_t n): the body runs for every
 *     i in [0, n) (a grid-stride loop; `i` and `n` are size_t).
 *
 *   CUBIND_VECTORIZE(vector_add, float, (float a, float b), { return a + b; })
 *     a scalar function of 1 to 6 arguments applied elementwise: the kernel takes one
 *     CUBIND_IN pointer per argument, named a, b, c, d, e, f by position (whatever the scalar
 *     function calls them), then CUBIND_OUT T *out and size_t n.
 *
 *   CUBIND_REDUCTION(dot, float, 0.0f, a + b, x[i] * y[i],
 *                    (CUBIND_IN const float *x, CUBIND_IN const float *y))
 *     *result = the reduce_expr (over `a` and `b`) of map_expr (over `i` and the parameters)
 *     for every i in [0, n), starting from `neutral`. T must be an arithmetic type. The kernel
 *     is dot(CUBIND_OUT_N(1) T *result, <the parameters>, size_t n, void *reduction_scratch);
 *     the generated stubs hide the last parameter: the runtime passes per-call scratch there.
 *
 * The parameter names i, n, result, out and reduction_scratch belong to the macros, and so do
 * names ending in an underscore.
 *
 * cubind-gen knows these kernels by their annotations: CUBIND_ELEMENT_COUNT on the `size_t n`
 * (every annotated pointer without _N(expr) then holds n elements; `cfg` may be NULL: the
 * runtime picks the launch shape), CUBIND_ELEMENT_MAP instead for CUBIND_VECTORIZE (element i
 * depends on element i alone, so its _call may split host buffers into chunks), and
 * CUBIND_REDUCTION_SCRATCH on the reduction's scratch.
 *
 * Maps (CUBIND_VECTORIZE) and reductions load several elements per thread at a time.
 * Reductions combine in a fixed order for a given grid: each thread folds its elements in index
 * order (runs of CUBIND_REDUCTION_RUN_ consecutive ones, a grid of runs apart), each block
 * reduces its threads with cub::BlockReduce (a fixed tree) into its partial, and the last block
 * to finish (an integer ticket, no float atomics) folds the partials in block order and puts
 * the ticket back to zero. Blocks are CUBIND_REDUCTION_BLOCK threads.
 */
#ifndef CUBIND_ELEMENTWISE_CUH
#define CUBIND_ELEMENTWISE_CUH

#include <stddef.h>

#include <cubind/annotations.h>

#if defined(__CUDACC__) && !defined(CUBIND_GENERATOR)
#include <cub/block/block_reduce.cuh>
#endif

/* Removes the parentheses around a parameter list or argument list. */
#define CUBIND_UNPAREN_(...) __VA_ARGS__

/* The first index and the stride of a grid-stride loop over size_t. */
#define CUBIND_GRID_INDEX_ ((size_t)blockIdx.x * blockDim.x + threadIdx.x)
#define CUBIND_GRID_STRIDE_ ((size_t)gridDim.x * blockDim.x)

/*
 * Elements a thread loads together in each step of a map or a reduction: with one 4-byte load
 * per thread in flight, a full GPU of threads streams memory well below its rate (measured on an
 * H100: a one-array scale at 0.79 of a device-to-device copy, a sum at 0.58 of CUB's).
 */
#define CUBIND_UNROLL_ 4
#define CUBIND_MAYBE_UNUSED_ __attribute__((unused))
/* A reduction thread's run of consecutive elements per step. Measured on an H100 (a 256 MiB
   sum, the L2 reset before each run): runs of 4 at 1.00x cub::DeviceReduce's kernel time
   (doubles 1.008x), 8 grid-strided elements 0.985x, runs of 8 0.98x. */
#define CUBIND_REDUCTION_RUN_ 4

/*
 * out[i] = (value) for every i in [0, n), `value` an expression of i. Each step computes
 * CUBIND_UNROLL_ of a thread's grid-stride elements, all loads first, then stores them: only
 * for maps, whose out[i] depends on index i alone, so that `out` may be one of the inputs.
 */
#define CUBIND_MAP_LOOP_(T, out, n, value)                                                      \
  for (size_t base_ = CUBIND_GRID_INDEX_, stride_ = CUBIND_GRID_STRIDE_; base_ < (n);            \
       base_ += CUBIND_UNROLL_ * stride_) {                                                      \
    T values_[CUBIND_UNROLL_];                                                                   \
    if (base_ + (CUBIND_UNROLL_ - 1) * stride_ < (n)) { /* the whole step: no checks */          \
      _Pragma("unroll") for (int u_ = 0; u_ < CUBIND_UNROLL_; u_++) {                            \
        size_t i CUBIND_MAYBE_UNUSED_ = base_ + u_ * stride_; /* a fill does not use it */       \
        values_[u_] = (value);                                                                   \
      }                                                                                          \
      _Pragma("unroll") for (int u_ = 0; u_ < CUBIND_UNROLL_; u_++)                              \
        (out)[base_ + u_ * stride_] = values_[u_];                                               \
    } else {                                                                                     \
      for (size_t i = base_; i < (n); i += stride_) (out)[i] = (value);                          \
    }                                                                                            \
  }

#define CUBIND_ELEMENTWISE(name, params, ...)                                                   \
  extern "C" __global__ void name(CUBIND_UNPAREN_ params, CUBIND_ELEMENT_COUNT size_t n) {      \
    for (size_t i = CUBIND_GRID_INDEX_; i < n; i += CUBIND_GRID_STRIDE_) __VA_ARGS__            \
  }

/* The number of parameters in a list of 1 to 6. */
#define CUBIND_NARGS_(...) CUBIND_NARGS_PICK_(__VA_ARGS__, 6, 5, 4, 3, 2, 1, 0)
#define CUBIND_NARGS_PICK_(_1, _2, _3, _4, _5, _6, count, ...) count
#define CUBIND_CAT_(a, b) CUBIND_CAT2_(a, b)
#define CUBIND_CAT2_(a, b) a##b

namespace cubind_detail {
/* The type of argument I of a function type (its parameters may be named: void(float a)). */
template <typename F, int I> struct arg;
template <typename R, typename A0, typename... Rest> struct arg<R(A0, Rest...), 0> {
  typedef A0 type;
};
template <typename R, typename A0, typename... Rest, int I> struct arg<R(A0, Rest...), I> {
  typedef typename arg<R(Rest...), I - 1>::type type;
};
} // namespace cubind_detail

/* `CUBIND_IN const <type of argument index of params> *letter`. */
#define CUBIND_VEC_PARAM_(params, index, letter)                                                \
  CUBIND_IN const typename cubind_detail::arg<void params, index>::type *letter
#define CUBIND_VEC_PARAMS_1(p) CUBIND_VEC_PARAM_(p, 0, a)
#define CUBIND_VEC_PARAMS_2(p) CUBIND_VEC_PARAMS_1(p), CUBIND_VEC_PARAM_(p, 1, b)
#define CUBIND_VEC_PARAMS_3(p) CUBIND_VEC_PARAMS_2(p), CUBIND_VEC_PARAM_(p, 2, c)
#define CUBIND_VEC_PARAMS_4(p) CUBIND_VEC_PARAMS_3(p), CUBIND_VEC_PARAM_(p, 3, d)
#define CUBIND_VEC_PARAMS_5(p) CUBIND_VEC_PARAMS_4(p), CUBIND_VEC_PARAM_(p, 4, e)
#define CUBIND_VEC_PARAMS_6(p) CUBIND_VEC_PARAMS_5(p), CUBIND_VEC_PARAM_(p, 5, f)
#define CUBIND_VEC_ARGS_1 a[i]
#define CUBIND_VEC_ARGS_2 CUBIND_VEC_ARGS_1, b[i]
#define CUBIND_VEC_ARGS_3 CUBIND_VEC_ARGS_2, c[i]
#define CUBIND_VEC_ARGS_4 CUBIND_VEC_ARGS_3, d[i]
#define CUBIND_VEC_ARGS_5 CUBIND_VEC_ARGS_4, e[i]
#define CUBIND_VEC_ARGS_6 CUBIND_VEC_ARGS_5, f[i]

/* The scalar function is a local type of the kernel, so that the kernel is the first
   declaration the macro makes and the doc comment before it is the kernel's. */
#define CUBIND_VECTORIZE(name, T, params, ...)                                                  \
  CUBIND_VECTORIZE_(name, T, params, CUBIND_NARGS_ params, __VA_ARGS__)
#define CUBIND_VECTORIZE_(name, T, params, count, ...)                                          \
  extern "C" __global__ void name(CUBIND_CAT_(CUBIND_VEC_PARAMS_, count)(params),               \
                                  CUBIND_OUT T *out, CUBIND_ELEMENT_MAP size_t n) {             \
    struct fn_ {                                                                                \
      __device__ __forceinline__ T operator() params const __VA_ARGS__                          \
    } fn;                                                                                       \
    CUBIND_MAP_LOOP_(T, out, n, fn(CUBIND_CAT_(CUBIND_VEC_ARGS_, count)))                       \
  }

#if defined(__CUDACC__) && !defined(CUBIND_GENERATOR)
namespace cubind_detail {
/*
 * The end of a reduction kernel: `acc` is this thread's fold. Blocks write their partials to
 * the scratch (an unsigned ticket counter, zeroed by the runtime, then one T per block at
 * CUBIND_REDUCTION_PARTIALS_OFFSET); the last block folds them in block order into *result.
 */
template <typename T, typename Op>
__device__ __forceinline__ void reduce_finish(T acc, T neutral, Op op, T *result, void *scratch) {
  typedef cub::BlockReduce<T, CUBIND_REDUCTION_BLOCK> reduce;
  __shared__ typename reduce::TempStorage temp;
  __shared__ bool last;
  unsigned *ticket = (unsigned *)scratch;
  volatile T *partials = (volatile T *)((char *)scratch + CUBIND_REDUCTION_PARTIALS_OFFSET);
  T total = reduce(temp).Reduce(acc, op);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = total;
    __threadfence(); /* the partial is visible before the ticket says so */
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  acc = neutral;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) acc = op(acc, (T)partials[b]);
  __syncthreads(); /* temp is reused */
  total = reduce(temp).Reduce(acc, op);
  if (threadIdx.x == 0) {
    *result = total;
    *ticket = 0; /* the next reduction on the same scratch (the legacy stream's) starts at 0 */
  }
}
} // namespace cubind_detail
#define CUBIND_REDUCTION_FINISH_(T, neutral, acc, op)                                           \
  cubind_detail::reduce_finish<T>(acc, (T)(neutral), op, result, reduction_scratch)
#else
/* The generator sees the signature only. */
#define CUBIND_REDUCTION_FINISH_(T, neutral, acc, op) (void)(acc)
#endif

#define CUBIND_REDUCTION(name, T, neutral, reduce_expr, map_expr, params)                       \
  extern "C" __global__ void __launch_bounds__(CUBIND_REDUCTION_BLOCK)                          \
      name(CUBIND_OUT_N(1) T *result, CUBIND_UNPAREN_ params, CUBIND_ELEMENT_COUNT size_t n,    \
           CUBIND_REDUCTION_SCRATCH void *reduction_scratch) {                                  \
    struct op_ {                                                                                \
      __device__ __forceinline__ T operator()(const T &a, const T &b) const {                   \
        return (reduce_expr);                                                                   \
      }                                                                                         \
    } op;                                                                                       \
    T acc = (T)(neutral);                                                                       \
    /* the thread's runs in index order, each loaded whole before it is folded */               \
    size_t base_ = CUBIND_GRID_INDEX_ * CUBIND_REDUCTION_RUN_;                                  \
    const size_t stride_ = CUBIND_GRID_STRIDE_ * CUBIND_REDUCTION_RUN_;                         \
    for (; base_ < n && n - base_ >= CUBIND_REDUCTION_RUN_; base_ += stride_) {                 \
      T values_[CUBIND_REDUCTION_RUN_];                                                         \
      _Pragma("unroll") for (int u_ = 0; u_ < CUBIND_REDUCTION_RUN_; u_++) {                    \
        size_t i CUBIND_MAYBE_UNUSED_ = base_ + u_; /* a count does not use it */               \
        values_[u_] = (T)(map_expr);                                                            \
      }                                                                                         \
      _Pragma("unroll") for (int u_ = 0; u_ < CUBIND_REDUCTION_RUN_; u_++)                      \
        acc = op(acc, values_[u_]);                                                             \
    }                                                                                           \
    for (size_t i = base_; i < n; i++) acc = op(acc, (T)(map_expr)); /* the last, short run */ \
    CUBIND_REDUCTION_FINISH_(T, neutral, acc, op);                                              \
  }

#endif /* CUBIND_ELEMENTWISE_CUH */
