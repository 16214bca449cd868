/*
 * array: cubind::array on a GPU, for each dtype (f32, f64, i32, i64), against CPU references on
 * random data: to_gpu / get, empty, zeros, fill, scale (into an unallocated out and in place),
 * axpby, add, sub, mul, div, sum, dot, min, max; an odd count (not a multiple of the block);
 * reductions bit-identical over runs; outputs poisoned so that unwritten elements show.
 */
#include "gpu_check.h"

#include <cubind/array.h>

enum { N = 100003, RUNS = 5 };

static const size_t sizes[] = {4, 8, 4, 8};
static const char *const names[] = {"f32", "f64", "i32", "i64"};

/* Element i of a host buffer of `dtype`, as a double, and the reverse (rounded as C does). */
static double get_at(const void *p, cubind_dtype dtype, size_t i) {
  switch (dtype) {
  case CUBIND_F32: return ((const float *)p)[i];
  case CUBIND_F64: return ((const double *)p)[i];
  case CUBIND_I32: return ((const int *)p)[i];
  default: return (double)((const long long *)p)[i];
  }
}
static void set_at(void *p, cubind_dtype dtype, size_t i, double v) {
  switch (dtype) {
  case CUBIND_F32: ((float *)p)[i] = (float)v; break;
  case CUBIND_F64: ((double *)p)[i] = v; break;
  case CUBIND_I32: ((int *)p)[i] = (int)v; break;
  default: ((long long *)p)[i] = (long long)v; break;
  }
}

/* Counts elements of the device array farther than tol * (|want| + 1) from want (doubles): a
   float result near 0 carries the rounding of its larger terms. */
static size_t check_array(const char *what, cubind_dtype dtype, const cubind_array *a,
                          const double *want, void *host, double tol) {
  size_t i, bad = 0;
  gpu_poison(host, N * sizes[dtype]);
  GPU_CHECK(cubind_array_get(a, host));
  for (i = 0; i < N; i++) {
    double got = get_at(host, dtype, i);
    if (!(fabs(got - want[i]) <= tol * (fabs(want[i]) + 1))) {
      if (bad < 3)
        fprintf(stderr, "%s %s[%zu]: got %.17g, want %.17g\n", names[dtype], what, i, got,
                want[i]);
      bad++;
    }
  }
  return bad;
}

/* A reduction's result, within tol times the sum of its terms' magnitudes (`scale`). */
static size_t check_value(const char *what, cubind_dtype dtype, double got, double want,
                          double tol, double scale) {
  if (fabs(got - want) <= tol * scale) return 0;
  fprintf(stderr, "%s %s: got %.17g, want %.17g\n", names[dtype], what, got, want);
  return 1;
}

static size_t test_dtype(cubind_dtype dtype) {
  int integer = dtype == CUBIND_I32 || dtype == CUBIND_I64;
  double tol = dtype == CUBIND_F32 ? 1e-6 : 0.0, sum_tol = dtype == CUBIND_F32 ? 1e-5 : 1e-12;
  void *hx = malloc(N * 8), *hy = malloc(N * 8), *host = malloc(N * 8);
  double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
  double *want = malloc(N * sizeof(double));
  double sum = 0, dot = 0, abs_sum = 0, abs_dot = 0, lo = 1e300, hi = -1e300, r, first;
  cubind_array ax, ay, out = {0}, z;
  size_t bad = 0, i;
  int run;
  if (!hx || !hy || !host || !x || !y || !want) exit(1);
  for (i = 0; i < N; i++) {
    /* integers small enough that sums and products stay exact; floats in [-1, 1) */
    double u = gpu_rand_float(-1.0f, 1.0f), v = gpu_rand_float(0.5f, 2.0f);
    set_at(hx, dtype, i, integer ? floor(u * 1000) : u);
    set_at(hy, dtype, i, integer ? floor(v * 100) : v); /* never 0: it divides */
    x[i] = get_at(hx, dtype, i);
    y[i] = get_at(hy, dtype, i);
    sum += x[i];
    dot += x[i] * y[i];
    abs_sum += fabs(x[i]);
    abs_dot += fabs(x[i] * y[i]);
    if (x[i] < lo) lo = x[i];
    if (x[i] > hi) hi = x[i];
  }
  GPU_CHECK(cubind_array_to_gpu(&ax, hx, N, dtype));
  GPU_CHECK(cubind_array_to_gpu(&ay, hy, N, dtype));

  for (i = 0; i < N; i++) want[i] = x[i];
  bad += check_array("to_gpu/get", dtype, &ax, want, host, 0);
  GPU_CHECK(cubind_array_zeros(&z, N, dtype));
  for (i = 0; i < N; i++) want[i] = 0;
  bad += check_array("zeros", dtype, &z, want, host, 0);
  GPU_CHECK(cubind_array_fill(&z, 3));
  for (i = 0; i < N; i++) want[i] = 3;
  bad += check_array("fill", dtype, &z, want, host, 0);

  GPU_CHECK(cubind_array_scale(&out, 2, &ax)); /* out unallocated: made like x */
  for (i = 0; i < N; i++) want[i] = 2 * x[i];
  bad += check_array("scale", dtype, &out, want, host, 0);
  GPU_CHECK(cubind_array_scale(&out, 3, &out)); /* in place */
  for (i = 0; i < N; i++) want[i] = 6 * x[i];
  bad += check_array("scale in place", dtype, &out, want, host, tol);
  GPU_CHECK(cubind_array_axpby(&out, 2, &ax, 3, &ay));
  for (i = 0; i < N; i++) want[i] = 2 * x[i] + 3 * y[i];
  bad += check_array("axpby", dtype, &out, want, host, dtype == CUBIND_F32 ? 1e-6 : 1e-15);
  GPU_CHECK(cubind_array_add(&out, &ax, &ay));
  for (i = 0; i < N; i++) want[i] = x[i] + y[i];
  bad += check_array("add", dtype, &out, want, host, tol);
  GPU_CHECK(cubind_array_sub(&out, &ax, &ay));
  for (i = 0; i < N; i++) want[i] = x[i] - y[i];
  bad += check_array("sub", dtype, &out, want, host, tol);
  GPU_CHECK(cubind_array_mul(&out, &ax, &ay));
  for (i = 0; i < N; i++) want[i] = x[i] * y[i];
  bad += check_array("mul", dtype, &out, want, host, tol);
  GPU_CHECK(cubind_array_div(&out, &ax, &ay));
  for (i = 0; i < N; i++) want[i] = integer ? (double)(long long)(x[i] / y[i]) : x[i] / y[i];
  bad += check_array("div", dtype, &out, want, host, tol);

  GPU_CHECK(cubind_array_sum(&ax, &first));
  bad += check_value("sum", dtype, first, sum, sum_tol, abs_sum);
  for (run = 0; run < RUNS; run++) {
    GPU_CHECK(cubind_array_sum(&ax, &r));
    if (memcmp(&r, &first, sizeof r) != 0) {
      fprintf(stderr, "%s sum run %d: %.17g differs from %.17g\n", names[dtype], run, r, first);
      bad++;
    }
  }
  GPU_CHECK(cubind_array_dot(&ax, &ay, &r));
  bad += check_value("dot", dtype, r, dot, sum_tol, abs_dot);
  GPU_CHECK(cubind_array_min(&ax, &r));
  bad += check_value("min", dtype, r, lo, 0, 0);
  GPU_CHECK(cubind_array_max(&ax, &r));
  bad += check_value("max", dtype, r, hi, 0, 0);
  if (cubind_array_add(&z, &ax, &out) != CUBIND_SUCCESS) bad++; /* same count and dtype: fine */

  GPU_CHECK(cubind_array_free(&ax));
  GPU_CHECK(cubind_array_free(&ay));
  GPU_CHECK(cubind_array_free(&out));
  GPU_CHECK(cubind_array_free(&z));
  if (cubind_array_sum(&ax, &r) != CUBIND_ERROR_INVALID_VALUE) bad++; /* freed */
  free(hx);
  free(hy);
  free(host);
  free(x);
  free(y);
  free(want);
  return bad;
}

int main(void) {
  size_t bad = 0;
  int dtype;
  gpu_require_gpu("gpu_array");
  gpu_seed("gpu_array");
  for (dtype = CUBIND_F32; dtype <= CUBIND_I64; dtype++) bad += test_dtype((cubind_dtype)dtype);
  return gpu_finish("gpu_array", bad);
}
