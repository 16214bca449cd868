/*
 * example_check.h: the small helpers every example uses: skip without a GPU, check each cubind
 * call, make seeded random inputs, poison outputs, compare with a CPU reference, time the CPU.
 * It lives with the examples (a copy of an example needs nothing from cubind's tests).
 *
 *   int main(void) {
 *     example_require_gpu("doublify");          no GPU: prints "doublify: skipped: no GPU: <why>",
 *                                               exits 77
 *     example_seed("doublify");                 seeds the random inputs; CUBIND_SEED=<n> picks others
 *     EXAMPLE_CHECK(cubind_malloc(&p, bytes));  on failure: the call, the status, cubind_last_error()
 *     ...
 *     return example_finish("doublify", bad);   0 when bad == 0, else 1
 *   }
 *
 * Exit codes: 0 passed, 1 failed, 77 skipped (ctest's SKIP_RETURN_CODE). Include it first:
 * clock_gettime needs _POSIX_C_SOURCE, which examples/CMakeLists.txt and the Makefile define.
 */
#ifndef CUBIND_EXAMPLE_CHECK_H
#define CUBIND_EXAMPLE_CHECK_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cubind/cubind.h>

/* Exits with 1, naming the call and cubind's message, unless `call` returns CUBIND_SUCCESS. */
#define EXAMPLE_CHECK(call) example_check_((call), #call, __FILE__, __LINE__)

static inline void example_check_(cubind_status status, const char *call, const char *file,
                                  int line) {
  if (status == CUBIND_SUCCESS) return;
  fprintf(stderr, "%s:%d: %s failed: %s: %s\n", file, line, call, cubind_status_name(status),
          cubind_last_error());
  exit(1);
}

/* Exits with 77 and one clear line when there is no driver or no GPU; with 1 on other failures. */
static inline void example_require_gpu(const char *program) {
  cubind_status status = cubind_init();
  if (status == CUBIND_ERROR_NO_DRIVER || status == CUBIND_ERROR_NO_DEVICE) {
    printf("%s: skipped: no GPU: %s\n", program, cubind_last_error());
    exit(77);
  }
  if (status != CUBIND_SUCCESS) {
    fprintf(stderr, "%s: cubind_init failed: %s: %s\n", program, cubind_status_name(status),
            cubind_last_error());
    exit(1);
  }
}

/* The random generator's state: xorshift64*, the same sequence everywhere for one seed. */
static inline uint64_t *example_rng_(void) {
  static uint64_t state = 1;
  return &state;
}

/* Seeds the inputs from CUBIND_SEED (default 20261122) and says which seed it is. */
static inline void example_seed(const char *program) {
  const char *env = getenv("CUBIND_SEED");
  uint64_t seed = env ? strtoull(env, NULL, 0) : 20261122u;
  printf("%s: seed %llu (CUBIND_SEED=<n> to change)\n", program, (unsigned long long)seed);
  *example_rng_() = seed ? seed : 1; /* xorshift never leaves 0 */
}

/* Fills a[0..n) with floats uniform in [lo, hi), from 24 random bits (each exact in a float). */
static inline void example_fill_random(float *a, size_t n, float lo, float hi) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint64_t *s = example_rng_();
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    a[i] = lo + (hi - lo) * (float)((uint32_t)((*s * 0x2545F4914F6CDD1DULL) >> 32) >> 8) *
                    (1.0f / 16777216.0f);
  }
}

/* Fills a buffer the GPU is about to write with 0xFF bytes (a NaN in every float and double), so
   an element it never writes cannot pass as a result. */
static inline void example_poison(void *p, size_t bytes) { memset(p, 0xFF, bytes); }

/*
 * Counts the elements of `got` farther than rel_tol * |want| from `want` (rel_tol 0: exactly
 * equal; a NaN always counts), printing the first few. `what` names the array in messages.
 */
static inline size_t example_compare_floats(const char *what, const float *got, const float *want,
                                            size_t n, double rel_tol) {
  size_t i, bad = 0;
  for (i = 0; i < n; i++) {
    double diff = fabs((double)got[i] - (double)want[i]);
    if (!(diff <= rel_tol * fabs((double)want[i]))) {
      if (bad < 5)
        fprintf(stderr, "%s[%zu]: got %.9g, want %.9g\n", what, i, (double)got[i],
                (double)want[i]);
      bad++;
    }
  }
  if (bad) fprintf(stderr, "%s: %zu of %zu elements differ\n", what, bad, n);
  return bad;
}

/*
 * Compares got with a * x + b * y computed exactly, allowing what float arithmetic may differ by
 * however the compiler rounds it: nvcc fuses a multiply and the add (either product may go into
 * the fused multiply-add), the host may not, so the bound is a few float epsilons of the terms'
 * magnitudes (not of the result's, which cancellation can make tiny). Returns the mismatches.
 */
static inline size_t example_compare_lin_comb(const char *what, const float *got, float a,
                                             const float *x, float b, const float *y, size_t n) {
  size_t i, bad = 0;
  for (i = 0; i < n; i++) {
    double exact = (double)a * x[i] + (double)b * y[i];
    double bound = 4.0 * FLT_EPSILON * (fabs((double)a * x[i]) + fabs((double)b * y[i]));
    if (!(fabs((double)got[i] - exact) <= bound)) {
      if (bad < 5)
        fprintf(stderr, "%s[%zu]: got %.9g, want %.9g (within %.3g)\n", what, i, (double)got[i],
                exact, bound);
      bad++;
    }
  }
  if (bad) fprintf(stderr, "%s: %zu of %zu elements differ\n", what, bad, n);
  return bad;
}

/* Largest |got - want| / |want| over n elements (want != 0 assumed); NaN if any got is NaN. */
static inline double example_max_rel_diff(const float *got, const float *want, size_t n) {
  size_t i;
  double worst = 0.0;
  for (i = 0; i < n; i++) {
    double rel = fabs((double)got[i] - (double)want[i]) / fabs((double)want[i]);
    if (rel != rel) return rel;
    if (rel > worst) worst = rel;
  }
  return worst;
}

/* Monotonic wall-clock time in milliseconds, for timing the CPU reference. */
static inline double example_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The program's verdict: prints it and returns the exit code. */
static inline int example_finish(const char *program, size_t bad) {
  if (bad) {
    printf("%s: FAILED (%zu mismatches)\n", program, bad);
    return 1;
  }
  printf("%s: OK\n", program);
  return 0;
}

#endif /* CUBIND_EXAMPLE_CHECK_H */
