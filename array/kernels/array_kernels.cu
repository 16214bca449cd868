// The kernels of cubind::array (array/src/array.c), one set per dtype, written with
// <cubind/elementwise.cuh>. Built by add_gpu_kernels with PREFIX cubind_array_k_ (the stubs are
// cubind_array_k_<kernel>_launch: in cubind's namespace, out of the user's way).
#include <cubind/elementwise.cuh>

// Each binary operation on a dtype T named S.
#define ARRAY_BINARY(S, T, name, op)                                                            \
  CUBIND_ELEMENTWISE(name##_##S, (CUBIND_OUT T *out, CUBIND_IN const T *x, CUBIND_IN const T *y), \
                     { out[i] = x[i] op y[i]; })

// Everything for a dtype T named S whose sums accumulate in A, between the limits lo and hi.
#define ARRAY_KERNELS(S, T, A, lo, hi)                                                          \
  CUBIND_ELEMENTWISE(fill_##S, (CUBIND_OUT T *out, T value), { out[i] = value; })              \
  CUBIND_ELEMENTWISE(scale_##S, (CUBIND_OUT T *out, T alpha, CUBIND_IN const T *x),            \
                     { out[i] = alpha * x[i]; })                                                \
  CUBIND_ELEMENTWISE(axpby_##S, (CUBIND_OUT T *out, T alpha, CUBIND_IN const T *x, T beta,     \
                                 CUBIND_IN const T *y),                                         \
                     { out[i] = alpha * x[i] + beta * y[i]; })                                  \
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
