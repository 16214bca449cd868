/*
 * vector_add_host: numba's vectorAdd, C = vectorAdd(A, B), over host arrays of N = 320,000,000
 * floats (issue 15: 2.56 GB in, 1.28 GB out), through vector_add_call (CUBIND_VECTORIZE: chunks
 * overlapping copies in, the kernel and copies out on several streams), with pageable (malloc)
 * and page-locked (cubind_malloc_host) arrays; and, as the reference for the link, the three
 * phases one after another on the page-locked arrays (cubind_to_device x 2, vector_add_launch,
 * cubind_from_device into device buffers allocated once).
 *
 * Prints the best of --reps (default 3) wall-clock times per variant; every result is checked
 * against the CPU's sums (exact: one rounding each).
 *
 * Then the seeds' sum of squares over a 4000 x 4000 float matrix on the host (python_peers.py's
 * sum_squares case: PyCUDA's ReductionKernel with to_gpu, CuPy, numba), through
 * sum_squares_call (copy in, the reduction, the result back), pageable and page-locked: the
 * median and p10/p90 of 10 calls, the result checked against a double-precision CPU sum.
 *
 * Usage: vector_add_host [--n N] [--reps R] [results.csv|results.json]
 */
#include "bench_common.h"
#include "vectorize_kernels.cubind.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SQUARES_N ((size_t)4000 * 4000)

/* The best of `reps` wall-clock times of one variant, in ms. */
typedef cubind_status (*variant_fn)(const float *a, const float *b, float *c, size_t n, void *ctx);

static double best_ms(variant_fn fn, const float *a, const float *b, float *c, size_t n,
                      void *ctx, int reps) {
  double best = 1e300;
  int r;
  for (r = 0; r < reps; r++) {
    int64_t start = bench_now_ns();
    double ms;
    CHECK_CB(fn(a, b, c, n, ctx));
    ms = (double)(bench_now_ns() - start) / 1e6;
    if (ms < best) best = ms;
  }
  return best;
}

static cubind_status through_call(const float *a, const float *b, float *c, size_t n, void *ctx) {
  (void)ctx;
  return vector_add_call(NULL, a, b, c, n);
}

/* The three phases one after another, into device buffers allocated once (ctx: their bases). */
static cubind_status three_phases(const float *a, const float *b, float *c, size_t n, void *ctx) {
  void **dev = ctx;
  size_t bytes = n * sizeof(float);
  cubind_status s = cubind_to_device(dev[0], a, bytes);
  if (s == CUBIND_SUCCESS) s = cubind_to_device(dev[1], b, bytes);
  if (s == CUBIND_SUCCESS) s = vector_add_launch(NULL, dev[0], dev[1], dev[2], n);
  if (s == CUBIND_SUCCESS) s = cubind_from_device(c, dev[2], bytes);
  return s;
}

/* sum_squares_call over m[0..n): median, p10, p90 of `reps` calls, in ms; checked. */
static size_t sum_squares(const char *variant, const float *m, size_t n, int reps) {
  double t[10], want = 0.0;
  float got = 0.0f;
  size_t i;
  int r;
  for (i = 0; i < n; i++) want += (double)m[i] * (double)m[i];
  CHECK_CB(sum_squares_call(NULL, &got, m, n)); /* warm-up */
  for (r = 0; r < reps; r++) {
    int64_t start = bench_now_ns();
    CHECK_CB(sum_squares_call(NULL, &got, m, n));
    t[r] = (double)(bench_now_ns() - start) / 1e6;
  }
  printf("  sum_squares_call, %-11s %9.2f ms  (p10 %.2f, p90 %.2f)\n", variant,
         bench_median(t, (size_t)reps), bench_percentile(t, (size_t)reps, 10),
         bench_percentile(t, (size_t)reps, 90));
  bench_result("sum_squares_host", "4000x4000", variant, "ms_median", bench_median(t, (size_t)reps),
               "ms");
  bench_result("sum_squares_host", "4000x4000", variant, "ms_p10",
               bench_percentile(t, (size_t)reps, 10), "ms");
  bench_result("sum_squares_host", "4000x4000", variant, "ms_p90",
               bench_percentile(t, (size_t)reps, 90), "ms");
  if (fabs((double)got - want) <= 1e-4 * want) return 0;
  fprintf(stderr, "sum_squares_call (%s): %.9g, the CPU's %.9g\n", variant, (double)got, want);
  return 1;
}

static size_t check(const float *a, const float *b, const float *c, size_t n) {
  size_t i, bad = 0;
  for (i = 0; i < n; i++) bad += !(c[i] == a[i] + b[i]);
  return bad;
}

int main(int argc, char **argv) {
  size_t n = 320000000, i, bytes, bad = 0;
  int reps = 3, arg;
  const char *results = NULL;
  float *pa, *pb, *pc, *la, *lb, *lc;
  void *dev[3];
  double t;
  for (arg = 1; arg < argc; arg++) {
    if (strcmp(argv[arg], "--n") == 0 && arg + 1 < argc) n = strtoull(argv[++arg], NULL, 10);
    else if (strcmp(argv[arg], "--reps") == 0 && arg + 1 < argc) reps = atoi(argv[++arg]);
    else results = argv[arg];
  }
  bench_require_gpu();
  bytes = n * sizeof(float);
  pa = malloc(bytes), pb = malloc(bytes), pc = malloc(bytes);
  if (!pa || !pb || !pc) bench_fail(__FILE__, __LINE__, "no host memory for 3 x %zu bytes", bytes);
  CHECK_CB(cubind_malloc_host((void **)&la, bytes));
  CHECK_CB(cubind_malloc_host((void **)&lb, bytes));
  CHECK_CB(cubind_malloc_host((void **)&lc, bytes));
  for (i = 0; i < n; i++) {
    pa[i] = la[i] = (float)(i % 1000) * 0.25f;
    pb[i] = lb[i] = (float)(i % 777) * 0.5f;
  }
  printf("vector_add_host: N = %zu floats (%.2f GB in, %.2f GB out), best of %d\n", n,
         2e-9 * (double)bytes, 1e-9 * (double)bytes, reps);

  t = best_ms(through_call, pa, pb, pc, n, NULL, reps);
  bad += check(pa, pb, pc, n);
  printf("  vector_add_call, pageable     %9.1f ms  %6.1f GB/s\n", t, 3e-6 * (double)bytes / t);
  bench_result("vector_add_host", "320M", "call_pageable", "ms", t, "ms");

  t = best_ms(through_call, la, lb, lc, n, NULL, reps);
  bad += check(la, lb, lc, n);
  printf("  vector_add_call, page-locked  %9.1f ms  %6.1f GB/s\n", t, 3e-6 * (double)bytes / t);
  bench_result("vector_add_host", "320M", "call_pinned", "ms", t, "ms");

  for (i = 0; i < 3; i++) CHECK_CB(cubind_malloc(&dev[i], bytes));
  t = best_ms(three_phases, la, lb, lc, n, dev, reps);
  bad += check(la, lb, lc, n);
  printf("  three phases, page-locked     %9.1f ms  %6.1f GB/s\n", t, 3e-6 * (double)bytes / t);
  bench_result("vector_add_host", "320M", "three_phases_pinned", "ms", t, "ms");
  for (i = 0; i < 3; i++) CHECK_CB(cubind_free(dev[i]));

  if (n >= SQUARES_N) { /* the matrix: the first 4000 x 4000 elements of a, in [0, 250) */
    printf("sum of squares, 4000 x 4000 host floats, median of 10 calls:\n");
    bad += sum_squares("pageable", pa, SQUARES_N, 10);
    bad += sum_squares("page-locked", la, SQUARES_N, 10);
  }

  CHECK_CB(cubind_free_host(la));
  CHECK_CB(cubind_free_host(lb));
  CHECK_CB(cubind_free_host(lc));
  free(pa);
  free(pb);
  free(pc);
  if (bad) bench_fail(__FILE__, __LINE__, "%zu results differ from the CPU's", bad);
  bench_write_results(results);
  return 0;
}
