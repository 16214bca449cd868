/*
 * globals: a polynomial evaluated from __constant__ coefficients set through the generated
 * globals_poly_coeffs_to_device, twice with different coefficients, and a __device__ counter
 * reset and read back through globals_evaluated_to/from_device; checked against the CPU.
 * Also: reading the coefficients back, and a count larger than the variable failing cleanly;
 * device function pointers read from unary_ops (void * in C) and passed to apply_op.
 */
#include "gpu_check.h"

#include "globals.cubind.h"

enum { N = 5000 };

static double horner(const double *c, double x) {
  volatile double acc = c[7];
  int k;
  for (k = 6; k >= 0; k--) {
    volatile double product = acc * x;
    acc = product + c[k];
  }
  return acc;
}

int main(void) {
  static double x[N], y[N], want[N];
  double coeffs[8], back[8], too_many[9] = {0};
  unsigned int counter = 0;
  cubind_config cfg = cubind_config_1d(N, 256);
  size_t bad = 0;
  int round, i, k;
  cubind_status status;

  gpu_require_gpu("gpu_globals");
  gpu_seed("gpu_globals");
  for (i = 0; i < N; i++) x[i] = (double)gpu_rand_float(-1.5f, 1.5f);
  for (round = 0; round < 2; round++) {
    for (k = 0; k < 8; k++) coeffs[k] = (double)gpu_rand_float(-2.0f, 2.0f);
    for (i = 0; i < N; i++) want[i] = horner(coeffs, x[i]);
    counter = 0;
    GPU_CHECK(globals_poly_coeffs_to_device(coeffs, 8));
    GPU_CHECK(globals_evaluated_to_device(&counter, 1));
    gpu_poison(y, sizeof y);
    GPU_CHECK(poly_eval_call(&cfg, x, y, N));
    counter = 12345;
    GPU_CHECK(globals_evaluated_from_device(&counter, 1));
    for (i = 0; i < N; i++)
      if (!(y[i] == want[i])) {
        if (bad < 5)
          fprintf(stderr, "round %d: y[%d]: got %.17g, want %.17g\n", round, i, y[i], want[i]);
        bad++;
      }
    if (counter != N) {
      fprintf(stderr, "round %d: evaluated = %u, want %d\n", round, counter, N);
      bad++;
    }
    gpu_poison(back, sizeof back);
    GPU_CHECK(globals_poly_coeffs_from_device(back, 8));
    for (k = 0; k < 8; k++)
      if (back[k] != coeffs[k]) {
        fprintf(stderr, "round %d: poly_coeffs[%d] read back %.17g, want %.17g\n", round, k,
                back[k], coeffs[k]);
        bad++;
      }
  }
  /* 9 doubles do not fit in poly_coeffs[8]: a clean failure naming the variable */
  status = globals_poly_coeffs_to_device(too_many, 9);
  if (status != CUBIND_ERROR_INVALID_VALUE || !strstr(cubind_last_error(), "poly_coeffs")) {
    fprintf(stderr, "oversized copy: got %s: %s\n", cubind_status_name(status),
            cubind_last_error());
    bad++;
  } else {
    printf("gpu_globals: oversized copy refused: %s\n", cubind_last_error());
  }
  /* the refused copy changed nothing */
  GPU_CHECK(globals_poly_coeffs_from_device(back, 8));
  for (k = 0; k < 8; k++) bad += back[k] != coeffs[k];
  GPU_CHECK(globals_poly_coeffs_to_device(coeffs, 0)); /* count 0: nothing, success */
  {
    void *ops[2] = {NULL, NULL};
    int op;
    GPU_CHECK(globals_unary_ops_from_device(ops, 2));
    for (op = 0; op < 2; op++) {
      gpu_poison(y, sizeof y);
      GPU_CHECK(apply_op_call(&cfg, x, y, ops[op], N));
      for (i = 0; i < N; i++)
        if (!(y[i] == (op == 0 ? 2.0 * x[i] : -x[i]))) {
          if (bad < 5)
            fprintf(stderr, "apply_op(unary_ops[%d]): y[%d] = %.17g for x = %.17g\n", op, i,
                    y[i], x[i]);
          bad++;
        }
    }
  }
  return gpu_finish("gpu_globals", bad);
}
