/*
 * elementwise: the kernels of <cubind/elementwise.cuh> (elementwise.cu) through their stubs,
 * against CPU references on random data: cfg NULL and given, n == 0, n not a multiple of the
 * block, outputs poisoned to catch unwritten elements, _launch on device arrays and _call on
 * host arrays, reductions bit-identical over repeated runs and on two streams at once, a
 * reduction's block size refused, n above 2^32 on bytes when the device has the memory, and
 * vector_add_call in chunks over large pageable and page-locked host arrays.
 */
#include "gpu_check.h"

#include <cubind/annotations.h>

#include "elementwise.cubind.h"

enum { N = 1000003, RUNS = 20 };

/* The dot product in double, for the tolerance check. */
static double dot_reference(const float *x, const float *y, size_t n) {
  double sum = 0.0;
  size_t i;
  for (i = 0; i < n; i++) sum += (double)x[i] * (double)y[i];
  return sum;
}

/* Counts a reduction result farther than 1e-4 relative from the reference. */
static size_t check_dot(const char *what, float got, double want) {
  if (fabs((double)got - want) <= 1e-4 * fabs(want) + 1e-3) return 0;
  fprintf(stderr, "%s: got %.9g, want %.9g\n", what, (double)got, want);
  return 1;
}

/* lin_comb and vector_add: _launch on device arrays and _call on host arrays, cfg NULL or not. */
static size_t test_elementwise(const float *x, const float *y, float *z, float *want) {
  size_t bad = 0, i;
  void *dx, *dy, *dz;
  cubind_config cfg = cubind_config_1d(N, 128);
  const size_t bytes = N * sizeof(float);
  GPU_CHECK(cubind_malloc(&dx, bytes));
  GPU_CHECK(cubind_malloc(&dy, bytes));
  GPU_CHECK(cubind_malloc(&dz, bytes));
  GPU_CHECK(cubind_to_device(dx, x, bytes));
  GPU_CHECK(cubind_to_device(dy, y, bytes));
  GPU_CHECK(cubind_memset_d8(dz, 0xFF, bytes));
  GPU_CHECK(lin_comb_launch(NULL, 2.5f, dx, -1.5f, dy, dz, N));
  GPU_CHECK(cubind_synchronize());
  gpu_poison(z, bytes);
  GPU_CHECK(cubind_from_device(z, dz, bytes));
  bad += gpu_compare_lin_comb("lin_comb_launch(cfg NULL)", z, 2.5f, x, -1.5f, y, N);
  cfg.grid.x = 7; /* any grid covers n: the kernel loops over it */
  GPU_CHECK(cubind_memset_d8(dz, 0xFF, bytes));
  GPU_CHECK(lin_comb_launch(&cfg, 2.5f, dx, -1.5f, dy, dz, N));
  GPU_CHECK(cubind_synchronize());
  gpu_poison(z, bytes);
  GPU_CHECK(cubind_from_device(z, dz, bytes));
  bad += gpu_compare_lin_comb("lin_comb_launch(7 blocks of 128)", z, 2.5f, x, -1.5f, y, N);
  gpu_poison(z, bytes);
  GPU_CHECK(lin_comb_call(NULL, 2.5f, x, -1.5f, y, z, N));
  bad += gpu_compare_lin_comb("lin_comb_call(cfg NULL)", z, 2.5f, x, -1.5f, y, N);

  for (i = 0; i < N; i++) want[i] = x[i] + y[i];
  gpu_poison(z, bytes);
  GPU_CHECK(vector_add_call(NULL, x, y, z, N));
  bad += gpu_compare_floats("vector_add_call", z, want, N, 0.0);
  gpu_poison(z, bytes);
  GPU_CHECK(vector_add_call(NULL, x, y, z, 1));
  bad += gpu_compare_floats("vector_add_call(n 1)", z, want, 1, 0.0);
  if (!(z[1] != z[1])) { /* the poison (a NaN) must stay past n */
    fprintf(stderr, "vector_add_call(n 1) wrote past n\n");
    bad++;
  }
  /* n == 0: nothing runs, NULL buffers are fine */
  GPU_CHECK(vector_add_call(NULL, NULL, NULL, NULL, 0));
  GPU_CHECK(vector_add_launch(NULL, NULL, NULL, NULL, 0));
  GPU_CHECK(lin_comb_launch(&cfg, 1.0f, NULL, 1.0f, NULL, NULL, 0));
  GPU_CHECK(cubind_free(dx));
  GPU_CHECK(cubind_free(dy));
  GPU_CHECK(cubind_free(dz));
  return bad;
}

/* dot: correct, bit-identical over runs and on two streams at once, n == 0, shape checks. */
static size_t test_dot(const float *x, const float *y) {
  size_t bad = 0, bytes = N * sizeof(float);
  int run;
  float first, got, results[2][RUNS];
  void *dx, *dy, *dresult;
  CUstream streams[2];
  cubind_config cfg = cubind_config_1d(N, 128);
  double want = dot_reference(x, y, N);
  GPU_CHECK(dot_call(NULL, &first, x, y, N));
  bad += check_dot("dot_call", first, want);
  GPU_CHECK(cubind_malloc(&dx, bytes));
  GPU_CHECK(cubind_malloc(&dy, bytes));
  GPU_CHECK(cubind_malloc(&dresult, 2 * RUNS * sizeof(float)));
  GPU_CHECK(cubind_to_device(dx, x, bytes));
  GPU_CHECK(cubind_to_device(dy, y, bytes));
  /* The legacy stream's reductions share a scratch whose ticket each kernel puts back to zero:
     the result is poisoned before every run (a ticket left behind would leave it unwritten),
     and every other run takes a grid of its own (64 blocks) on the same scratch. */
  for (run = 0; run < RUNS; run++) {
    cubind_config legacy = cubind_config_1d(N, CUBIND_REDUCTION_BLOCK);
    legacy.grid.x = 64;
    GPU_CHECK(cubind_memset_d8(dresult, 0xFF, sizeof(float)));
    GPU_CHECK(dot_launch(run % 2 ? &legacy : NULL, (float *)dresult, dx, dy, N));
    GPU_CHECK(cubind_from_device(&got, dresult, sizeof got));
    if (run % 2) { /* another grid, another order: checked against the reference */
      bad += check_dot("dot_launch on 64 blocks", got, want);
      continue;
    }
    if (memcmp(&got, &first, sizeof got) != 0) {
      fprintf(stderr, "dot_launch run %d: %.9g differs from the first run's %.9g\n", run,
              (double)got, (double)first);
      bad++;
    }
  }
  /* Two streams at once, each with its own scratch: x.y on one, x.x on the other. */
  GPU_CHECK(cubind_stream_create(&streams[0]));
  GPU_CHECK(cubind_stream_create(&streams[1]));
  for (run = 0; run < RUNS; run++) {
    cubind_config on = cubind_config_1d(N, CUBIND_REDUCTION_BLOCK);
    on.grid.x = 64;
    on.stream = streams[0];
    GPU_CHECK(dot_launch(&on, (float *)dresult + run, dx, dy, N));
    on.stream = streams[1];
    GPU_CHECK(dot_launch(&on, (float *)dresult + RUNS + run, dx, dx, N));
  }
  GPU_CHECK(cubind_synchronize());
  GPU_CHECK(cubind_from_device(results, dresult, sizeof results));
  bad += check_dot("dot on stream 0", results[0][0], want);
  bad += check_dot("dot on stream 1", results[1][0], dot_reference(x, x, N));
  for (run = 1; run < RUNS; run++)
    if (memcmp(&results[0][run], &results[0][0], sizeof(float)) != 0 ||
        memcmp(&results[1][run], &results[1][0], sizeof(float)) != 0) {
      fprintf(stderr, "dot on two streams, run %d: %.9g %.9g differ from %.9g %.9g\n", run,
              (double)results[0][run], (double)results[1][run], (double)results[0][0],
              (double)results[1][0]);
      bad++;
    }
  GPU_CHECK(cubind_stream_destroy(streams[0]));
  GPU_CHECK(cubind_stream_destroy(streams[1]));
  /* n == 0: the neutral value, over a poisoned result */
  gpu_poison(&got, sizeof got);
  GPU_CHECK(dot_call(NULL, &got, NULL, NULL, 0));
  if (got != 0.0f) {
    fprintf(stderr, "dot_call(n 0): got %.9g, want 0\n", (double)got);
    bad++;
  }
  /* blocks other than CUBIND_REDUCTION_BLOCK are refused, not miscomputed */
  if (dot_launch(&cfg, (float *)dresult, dx, dy, N) != CUBIND_ERROR_INVALID_CONFIG) {
    fprintf(stderr, "dot_launch with blocks of 128 was not refused\n");
    bad++;
  }
  GPU_CHECK(cubind_free(dx));
  GPU_CHECK(cubind_free(dy));
  GPU_CHECK(cubind_free(dresult));
  return bad;
}

/* n above 2^32 on bytes: every index reached (mark_u8 writes 1 below 2^32, 2 above). */
static size_t test_huge(void) {
  const size_t n = ((size_t)1 << 32) + 4099;
  unsigned long long sum = 12345, want = ((unsigned long long)1 << 32) + 2ull * 4099;
  unsigned char tail[2];
  void *d;
  if (gpu_under_sanitizer()) {
    printf("gpu_elementwise: n > 2^32 not tested under compute-sanitizer\n");
    return 0;
  }
  if (cubind_malloc(&d, n) != CUBIND_SUCCESS) {
    printf("gpu_elementwise: n > 2^32 not tested: %s\n", cubind_last_error());
    return 0;
  }
  GPU_CHECK(cubind_memset_d8(d, 0xFF, n));
  GPU_CHECK(mark_u8_launch(NULL, d, 1, n));
  {
    void *dsum;
    GPU_CHECK(cubind_malloc(&dsum, sizeof sum));
    GPU_CHECK(sum_u8_launch(NULL, dsum, d, n));
    GPU_CHECK(cubind_from_device(&sum, dsum, sizeof sum));
    GPU_CHECK(cubind_free(dsum));
  }
  GPU_CHECK(cubind_from_device(tail, (unsigned char *)d + n - 2, 2));
  GPU_CHECK(cubind_free(d));
  if (sum != want || tail[0] != 2 || tail[1] != 2) {
    fprintf(stderr, "n = 2^32 + 4099: sum %llu (want %llu), last bytes %u %u (want 2 2)\n", sum,
            want, tail[0], tail[1]);
    return 1;
  }
  return 0;
}

/*
 * vector_add_call over host arrays large enough to run in chunks on several streams (pipeline.c:
 * 16 MiB chunks), pageable (through the staging threads), page-locked, and the two mixed, n not a
 * multiple of the chunk: every element equal to the CPU's sum (one rounding each: exact).
 */
static size_t test_chunked(void) {
  /* under compute-sanitizer: still chunks (16 MiB of floats is 4M), fewer of them */
  const size_t n = (gpu_under_sanitizer() ? (size_t)9 << 20 : (size_t)40 << 20) + 12345;
  size_t bad = 0, i, pass;
  float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
  float *c = malloc(n * sizeof(float)), *pinned[3];
  if (!a || !b || !c) {
    printf("gpu_elementwise: chunked calls not tested: no host memory\n");
    free(a);
    free(b);
    free(c);
    return 0;
  }
  gpu_fill_random(a, n, -1.0f, 1.0f);
  gpu_fill_random(b, n, -1.0f, 1.0f);
  for (pass = 0; pass < 3; pass++) {
    static const char *const kinds[] = {"pageable", "page-locked", "pageable and page-locked"};
    float *x = a, *y = b, *z = c;
    if (pass == 1) { /* page-locked */
      for (i = 0; i < 3; i++) GPU_CHECK(cubind_malloc_host((void **)&pinned[i], n * sizeof(float)));
      memcpy(pinned[0], a, n * sizeof(float));
      memcpy(pinned[1], b, n * sizeof(float));
      x = pinned[0], y = pinned[1], z = pinned[2];
    }
    if (pass == 2) y = pinned[1]; /* mixed: the staging threads copy one directly */
    gpu_poison(z, n * sizeof(float));
    GPU_CHECK(vector_add_call(NULL, x, y, z, n));
    for (i = 0; i < n; i++)
      if (!(z[i] == x[i] + y[i])) {
        if (bad < 5)
          fprintf(stderr, "chunked vector_add_call (%s)[%zu]: got %.9g, want %.9g\n",
                  kinds[pass], i, (double)z[i], (double)(x[i] + y[i]));
        bad++;
      }
    if (pass == 2)
      for (i = 0; i < 3; i++) GPU_CHECK(cubind_free_host(pinned[i]));
  }
  free(a);
  free(b);
  free(c);
  return bad;
}

int main(void) {
  size_t bad = 0;
  float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
  float *z = malloc(N * sizeof(float)), *want = malloc(N * sizeof(float));
  gpu_require_gpu("gpu_elementwise");
  gpu_seed("gpu_elementwise");
  if (!x || !y || !z || !want) return 1;
  gpu_fill_random(x, N, -1.0f, 1.0f);
  gpu_fill_random(y, N, -1.0f, 1.0f);
  bad += test_elementwise(x, y, z, want);
  bad += test_dot(x, y);
  bad += test_huge();
  bad += test_chunked();
  free(x);
  free(y);
  free(z);
  free(want);
  return gpu_finish("gpu_elementwise", bad);
}
