// __constant__ and __device__ variables set and read through the generated copy functions
// (globals_poly_coeffs_to_device, globals_evaluated_from_device, ...), and device function
// pointers read from a __device__ array and passed to a kernel (void * in C).
#include <cubind/annotations.h>

__constant__ double poly_coeffs[8];
__device__ unsigned int evaluated;

/** y[i] = sum_k poly_coeffs[k] * x[i]^k (Horner); adds 1 to `evaluated` per element. */
extern "C" __global__ void poly_eval(CUBIND_IN_N(n) const double *x, CUBIND_OUT_N(n) double *y,
                                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double acc = poly_coeffs[7];
  for (int k = 6; k >= 0; k--) /* explicit roundings: no FMA, so the CPU matches exactly */
    acc = __dadd_rn(__dmul_rn(acc, x[i]), poly_coeffs[k]);
  y[i] = acc;
  atomicAdd(&evaluated, 1u);
}

typedef double (*unary_op)(double);
__device__ double twice(double v) { return 2.0 * v; }
__device__ double negated(double v) { return -v; }

/** The device functions a host program picks from (their device addresses). */
__device__ unary_op unary_ops[2] = {twice, negated};

/** y[i] = op(x[i]), op one of unary_ops. */
extern "C" __global__ void apply_op(CUBIND_IN_N(n) const double *x, CUBIND_OUT_N(n) double *y,
                                    unary_op op, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = op(x[i]);
}
