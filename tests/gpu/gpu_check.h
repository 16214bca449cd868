/*
 * gpu_check.h: what every GPU test and example needs: skip without a GPU, check each cubind
 * call, make seeded random inputs, poison outputs, compare with a CPU reference, time the CPU.
 *
 *   int main(void) {
 *     gpu_require_gpu("doublify");          no GPU: prints "doublify: skipped: no GPU: <why>", exits 77
 *     gpu_seed("doublify");                 seeds gpu_rand_*(); CUBIND_SEED=<n> picks another
 *     GPU_CHECK(cubind_malloc(&p, bytes));  on failure: the call, the status, cubind_last_error()
 *     ...
 *     return gpu_finish("doublify", bad);   0 when bad == 0, else 1
 *   }
 *
 * Exit codes: 0 passed, 1 failed, 77 skipped (ctest's SKIP_RETURN_CODE). Include it first:
 * clock_gettime needs _POSIX_C_SOURCE, which the CMake targets define.
 */
#ifndef CUBIND_GPU_CHECK_H
#define CUBIND_GPU_CHECK_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cubind/cubind.h>

#define GPU_SKIP 77

/* Exits with 1, naming the call and cubind's message, unless `call` returns CUBIND_SUCCESS. */
#define GPU_CHECK(call) gpu_check_((call), #call, __FILE__, __LINE__)

static inline void gpu_check_(cubind_status status, const char *call, const char *file,
                              int line) {
  if (status == CUBIND_SUCCESS) return;
  fprintf(stderr, "%s:%d: %s failed: %s: %s\n", file, line, call, cubind_status_name(status),
          cubind_last_error());
  exit(1);
}

/* Exits with 77 and one clear line when there is no driver or no GPU; with 1 on other failures. */
static inline void gpu_require_gpu(const char *program) {
  cubind_status status = cubind_init();
  if (status == CUBIND_ERROR_NO_DRIVER || status == CUBIND_ERROR_NO_DEVICE) {
    printf("%s: skipped: no GPU: %s\n", program, cubind_last_error());
    exit(GPU_SKIP);
  }
  if (status != CUBIND_SUCCESS) {
    fprintf(stderr, "%s: cubind_init failed: %s: %s\n", program, cubind_status_name(status),
            cubind_last_error());
    exit(1);
  }
}

/* xorshift64*: small, fast, and the same sequence on every platform for a given seed. */
static inline uint64_t *gpu_rng_state_(void) {
  static uint64_t state = 1;
  return &state;
}

static inline void gpu_seed(const char *program) {
  const char *env = getenv("CUBIND_SEED");
  uint64_t seed = env ? strtoull(env, NULL, 0) : 20261122u;
  printf("%s: seed %llu (CUBIND_SEED=<n> to change)\n", program, (unsigned long long)seed);
  *gpu_rng_state_() = seed ? seed : 1; /* xorshift never leaves 0 */
}

static inline uint32_t gpu_rand_u32(void) {
  uint64_t *s = gpu_rng_state_();
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (uint32_t)((*s * 0x2545F4914F6CDD1DULL) >> 32);
}

/* Uniform in [lo, hi), from 24 random bits, so every value is exact in a float. */
static inline float gpu_rand_float(float lo, float hi) {
  return lo + (hi - lo) * (float)(gpu_rand_u32() >> 8) * (1.0f / 16777216.0f);
}

static inline void gpu_fill_random(float *a, size_t n, float lo, float hi) {
  size_t i;
  for (i = 0; i < n; i++) a[i] = gpu_rand_float(lo, hi);
}

/* Fills a buffer the GPU is about to write with 0xFF bytes (a NaN in every float and double), so
   an element it never writes cannot pass as a result. */
static inline void gpu_poison(void *p, size_t bytes) { memset(p, 0xFF, bytes); }

/*
 * Counts the elements of `got` farther than rel_tol * |want| from `want` (rel_tol 0: exactly
 * equal; a NaN always counts), printing the first few. `what` names the array in messages.
 */
static inline size_t gpu_compare_floats(const char *what, const float *got, const float *want,
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
 * A copy of example_check.h's: the examples stay self-contained, and this header is their twin.
 */
static inline size_t gpu_compare_lin_comb(const char *what, const float *got, float a,
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
static inline double gpu_max_rel_diff(const float *got, const float *want, size_t n) {
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
static inline double gpu_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/*
 * 1 when scripts/gpu-suite.sh runs the program under compute-sanitizer (CUBIND_UNDER_SANITIZER
 * set): tests that move gigabytes leave those parts out there (each run has 120 s).
 */
static inline int gpu_under_sanitizer(void) {
  const char *value = getenv("CUBIND_UNDER_SANITIZER");
  return value && *value && strcmp(value, "0") != 0;
}

/* The program's verdict: prints it and returns the exit code. */
static inline int gpu_finish(const char *program, size_t bad) {
  if (bad) {
    printf("%s: FAILED (%zu mismatches)\n", program, bad);
    return 1;
  }
  printf("%s: OK\n", program);
  return 0;
}

#endif /* CUBIND_GPU_CHECK_H */
