// The kernels of cubind::array (array/src/array.c), one set per dtype, written with
// <cubind/elementwise.cuh>: maps through its batched loop, reductions with CUBIND_REDUCTION. Built by add_gpu_kernels with PREFIX cubind_array_k_ (the stubs are
// cubind_array_k_<kernel>_launch: in cubind's namespace, out of the user's way).
#include <cubind/elementwise.cuh>

// out[i] = value (an expression of i and the parameters) for every i: a map (element i depends
// on index i alone), so its loads go CUBIND_UNROLL_ at a time (<cubind/elementwise.cuh>).
#define ARRAY_MAP(name, T, params, value)                                                       \
  extern "C" __global__ void name(CUBIND_OUT T *out, CUBIND_UNPAREN_ params,                    \
                                  CUBIND_ELEMENT_MAP size_t n) {                                \
    CUBIND_MAP_LOOP_(T, out, n, value)                                                          \
  }

// Each binary operation on a dtype T named S.
#define ARRAY_BINARY(S, T, name, op)                                                            \
  ARRAY_MAP(name##_##S, T, (CUBIND_IN const T *x, CUBIND_IN const T *y), x[i] op y[i])

// Everything for a dtype T named S whose sums accumulate in A, between the limits lo and hi.
#define ARRAY_KERNELS(S, T, A, lo, hi)                                                          \
  ARRAY_MAP(fill_##S, T, (T value), value)                                                      \
  ARRAY_MAP(scale_##S, T, (T alpha, CUBIND_IN const T *x), alpha * x[i])                        \
  ARRAY_MAP(axpby_##S, T, (T alpha, CUBIND_IN const T *x, T beta, CUBIND_IN const T *y),        \
            alpha * x[i] + beta * y[i])                                                         \
  ARRAY_BINARY(S, T, add, +)                                                                    \
  ARRAY_BINARY(S, T, sub, -)                                                                    \
  ARRAY_BINARY(S, T, mul, *)                                                                    \
  ARRAY_BINARY(S, T, div, /)                                                                    \
  CUBIND_REDUCTION(sum_##S, A, 0, a + b, x[i], (CUBIND_IN const T *x))                          \
  CUBIND_REDUCTION(dot_##S, A, 0, a + b, (A)x[i] * (A)y[i],                                     \
                   (CUBIND_IN const T *x, CUBIND_IN const T *y))                                \
  CUBIND_REDUCTION(min_##S, T, hi, b < a ? b : a, x[i], (CUBIND_IN const T *x))                 \
  CUBIND_REDUCTION(max_##S, T, lo, b > a ? b : a, x[i], (CUBIND_IN const T *x))

ARRAY_KERNELS(f32, float, float, -__builtin_huge_valf(), __builtin_huge_valf())
ARRAY_KERNELS(f64, double, double, -__builtin_huge_val(), __builtin_huge_val())
ARRAY_KERNELS(i32, int, long long, (-0x7fffffff - 1), 0x7fffffff)
ARRAY_KERNELS(i64, long long, long long, (-0x7fffffffffffffffLL - 1), 0x7fffffffffffffffLL)
