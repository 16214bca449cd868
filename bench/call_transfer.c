/*
 * call_transfer: `<kernel>_call` round trips (copy in, launch, copy out, synchronize) against the
 * same sequence written by hand with the driver, for pageable (malloc) and page-locked
 * (cubind_malloc_host) host buffers.
 *
 * The kernel is inout_add1(CUBIND_INOUT_N(n) float *a, size_t n): a[i] += 1, so the buffer goes
 * to the device and back whole. Variants, interleaved within each repetition:
 *   cubind_call   inout_add1_call(&cfg, host, n)            (cubind's reused device scratch)
 *   driver        cuMemcpyHtoD, cuLaunchKernel, cuMemcpyDtoH, cuStreamSynchronize on the legacy
 *                 stream, into one cuMemAlloc'd buffer allocated once up front (the plain
 *                 driver sequence, at its best: no allocation per call)
 * each with pageable and with page-locked host memory. "driver, pinned" is the reference for the
 * page-locked link bandwidth (about 55 GB/s each way on an H200).
 *
 * Reading the numbers: GB/s = 2 * buffer bytes / median round-trip time (bytes moved in plus out,
 * 1 GB = 1e9 B), so a link at 55 GB/s each way shows as ~55 GB/s. "vs driver" is the median over
 * repetitions of (driver time / cubind time) for the same memory kind: above 1 means cubind is
 * faster. The kernel itself is a few microseconds at most sizes; at 4 KiB the round trip is all
 * latency, so read that row as us rather than GB/s.
 * Every buffer is checked at the end: element i must equal its start value plus the number of
 * round trips done on it (every byte really went both ways).
 *
 * Pageable buffers: from CUBIND_STAGING_MIN bytes (default 1 MiB; K/M suffixes) cubind copies a
 * pageable buffer through its staging threads (CUBIND_STAGING_THREADS, default 12 or the
 * processors online; runtime/src/hostcopy.c) unless CUBIND_PAGEABLE_STAGING=0 (the driver's
 * pageable copy), once the process has moved CUBIND_STAGING_START bytes that way (256 MiB by
 * default: a first round trip of the largest buffer gets there before anything is timed). The
 * setting is read once per process, so run_all.sh runs this program again with it off
 * (--pageable-only --label nostaging), with its own paired driver reference; the header line says
 * which.
 *
 * Usage: call_transfer [--large] [--reps-scale X] [--pageable-only] [--label NAME]
 *                      [results.csv|results.json]
 *   --large adds a 1 GiB buffer (needs 2 GiB of host RAM per memory kind and 2 GiB on the GPU).
 *   --label NAME appends "@NAME" to the variant names in the results file.
 */
#include "bench_common.h"
#include "bench_kernels.cubind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char cubind_fatbin_bench_kernels[];

enum { M_PAGEABLE, M_PINNED, NUM_MEM };
static const char *const mem_names[NUM_MEM] = {"pageable", "pinned"};
enum { I_CUBIND, I_DRIVER, NUM_IMPL };
static const char *const impl_names[NUM_IMPL] = {"cubind_call", "driver"};

static CUfunction add1;
static CUdeviceptr dev_buf; /* the driver variant's buffer, allocated once for the largest size */

#define BLOCK 256u
#define MAX_GRID 4096u /* the kernel loops, so a fixed cap keeps every size on the same grid */

static cubind_config config_for(size_t n) {
  cubind_config cfg = cubind_config_1d(n, BLOCK);
  if (cfg.grid.x > MAX_GRID) cfg.grid.x = MAX_GRID;
  return cfg; /* stream 0: the legacy default stream, as the driver variant uses */
}

/* One round trip of `n` floats at `host`; returns its wall time in ns. */
static double round_trip(int impl, float *host, size_t n) {
  cubind_config cfg = config_for(n);
  int64_t t0 = bench_now_ns();
  if (impl == I_CUBIND) {
    CHECK_CB(inout_add1_call(&cfg, host, n));
  } else {
    size_t bytes = n * sizeof(float);
    void *args[] = {&dev_buf, &n};
    CHECK_CU(bench_cu.cuMemcpyHtoD(dev_buf, host, bytes));
    CHECK_CU(bench_cu.cuLaunchKernel(add1, cfg.grid.x, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL));
    CHECK_CU(bench_cu.cuMemcpyDtoH(host, dev_buf, bytes));
    CHECK_CU(bench_cu.cuStreamSynchronize(NULL));
  }
  return (double)(bench_now_ns() - t0);
}

/* Start values: small integers, so that adding 1 a few hundred times stays exact in float. */
static void fill(float *a, size_t n) {
  for (size_t i = 0; i < n; i++) a[i] = (float)(i % 1021);
}

static void verify(const float *a, size_t n, int trips, const char *what) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != (float)(i % 1021) + (float)trips)
      bench_fail(__FILE__, __LINE__, "%s: element %zu is %g, expected %g after %d round trips",
                 what, i, (double)a[i], (double)((float)(i % 1021) + (float)trips), trips);
}

/*
 * One thread's memcpy between pageable memory and a 4 MiB page-locked chunk, each way, over
 * `bytes` of `pageable` (median of 5 passes), in GB/s: the ceiling of any design that stages
 * pageable buffers through page-locked chunks with one thread's memcpy (why cubind registers the
 * buffer instead).
 */
static void host_memcpy_rate(float *pageable, size_t bytes, const char *label) {
  const size_t chunk = (size_t)4 << 20;
  char *pinned = NULL;
  double t[2][5], gbs[2];
  if (bytes > ((size_t)256 << 20)) bytes = (size_t)256 << 20;
  if (bytes < chunk) return;
  CHECK_CB(cubind_malloc_host((void **)&pinned, chunk));
  memset(pinned, 1, chunk);
  for (int pass = 0; pass < 5; pass++) {
    int64_t t0 = bench_now_ns();
    for (size_t off = 0; off + chunk <= bytes; off += chunk)
      memcpy(pinned, (char *)pageable + off, chunk);
    int64_t t1 = bench_now_ns();
    for (size_t off = 0; off + chunk <= bytes; off += chunk)
      memcpy((char *)pageable + off, pinned, chunk);
    t[0][pass] = (double)(t1 - t0);
    t[1][pass] = (double)(bench_now_ns() - t1);
  }
  for (int d = 0; d < 2; d++) gbs[d] = (double)(bytes / chunk * chunk) / bench_median(t[d], 5);
  printf("host memcpy, one thread, 4 MiB chunks: pageable -> page-locked %.2f GB/s, "
         "page-locked -> pageable %.2f GB/s (the ceiling of memcpy staging each way)\n",
         gbs[0], gbs[1]);
  bench_result("call_transfer", "host_memcpy", label ? label : "memcpy", "GBps_to_pinned", gbs[0],
               "GB/s");
  bench_result("call_transfer", "host_memcpy", label ? label : "memcpy", "GBps_from_pinned",
               gbs[1], "GB/s");
  CHECK_CB(cubind_free_host(pinned));
}

static void usage(void) {
  fprintf(stderr, "usage: call_transfer [--large] [--reps-scale X] [--pageable-only] "
                  "[--label NAME] [results.csv|.json]\n");
  exit(2);
}

/* "cubind_call" or "cubind_call@label" (static storage, one per impl). */
static const char *variant_name(int impl, const char *label) {
  static char names[NUM_IMPL][64];
  if (!label) return impl_names[impl];
  snprintf(names[impl], sizeof names[impl], "%s@%s", impl_names[impl], label);
  return names[impl];
}

int main(int argc, char **argv) {
  const char *out = NULL, *label = NULL;
  int large = 0, num_mem = NUM_MEM;
  double reps_scale = 1.0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--large") == 0)
      large = 1;
    else if (strcmp(argv[i], "--reps-scale") == 0 && i + 1 < argc)
      reps_scale = atof(argv[++i]);
    else if (strcmp(argv[i], "--pageable-only") == 0)
      num_mem = 1;
    else if (strcmp(argv[i], "--label") == 0 && i + 1 < argc)
      label = argv[++i];
    else if (argv[i][0] == '-')
      usage();
    else
      out = argv[i];
  }

  /* Sizes and repetitions: more repetitions where a round trip is short. */
  static const struct {
    const char *name;
    size_t bytes;
    int reps;
  } sizes[] = {{"4KiB", 4u << 10, 400},   {"64KiB", 64u << 10, 200}, {"1MiB", 1u << 20, 100},
               {"4MiB", 4u << 20, 60},    {"16MiB", 16u << 20, 30},  {"64MiB", 64u << 20, 12},
               {"256MiB", 256u << 20, 7}, {"1GiB", (size_t)1 << 30, 3}};
  int num_sizes = (int)(sizeof sizes / sizeof sizes[0]) - (large ? 0 : 1);
  size_t max_bytes = sizes[num_sizes - 1].bytes;

  bench_require_gpu();
  bench_driver_load();

  /* A first call loads the module and makes cubind's context current; the driver variant then
     loads the same fatbin bytes into that context. */
  float warm = 0.0f;
  cubind_config one = config_for(1);
  CHECK_CB(inout_add1_call(&one, &warm, 1));
  if (warm != 1.0f) bench_fail(__FILE__, __LINE__, "warm-up call gave %g, expected 1", warm);
  bench_driver_use_primary_context();
  add1 = bench_driver_function(cubind_fatbin_bench_kernels, "inout_add1");
  CHECK_CU(bench_cu.cuMemAlloc(&dev_buf, max_bytes));

  float *host[NUM_MEM];
  host[M_PAGEABLE] = malloc(max_bytes);
  if (!host[M_PAGEABLE]) bench_fail(__FILE__, __LINE__, "out of host memory");
  CHECK_CB(cubind_malloc_host((void **)&host[M_PINNED], max_bytes));

  memset(host[M_PAGEABLE], 0x5a, max_bytes); /* touch every page before timing anything */
  {
    /* The steady state: cubind's staging threads start once a process's large pageable _call
       traffic reaches CUBIND_STAGING_START (256 MiB by default); one round trip of the largest
       buffer gets there, as any program does after that much. cold_start times a first call. */
    cubind_config all = config_for(max_bytes / sizeof(float));
    CHECK_CB(inout_add1_call(&all, host[M_PAGEABLE], max_bytes / sizeof(float)));
  }
  host_memcpy_rate(host[M_PAGEABLE], max_bytes, label);
  printf("_call round trips (copy in + kernel + copy out), GB/s = 2 x bytes / median time\n");
  {
    const char *on = getenv("CUBIND_PAGEABLE_STAGING"), *min = getenv("CUBIND_STAGING_MIN");
    const char *threads = getenv("CUBIND_STAGING_THREADS");
    printf("pageable staging: %s, from %s, %s threads%s%s\n",
           on && strcmp(on, "0") == 0 ? "off (the driver's pageable copy)"
                                      : "on (cubind's staging threads)",
           min ? min : "1M (default)", threads ? threads : "default", label ? "; label " : "",
           label ? label : "");
  }
  printf("%-7s %-9s %12s %12s %12s %12s %10s\n", "size", "memory", "cubind us", "driver us",
         "cubind GB/s", "driver GB/s", "vs driver");

  int max_reps = 0;
  for (int s = 0; s < num_sizes; s++)
    if (sizes[s].reps > max_reps) max_reps = sizes[s].reps;
  max_reps = (int)(max_reps * reps_scale) + 1;
  double *t = malloc(sizeof(double) * NUM_IMPL * (size_t)max_reps);
  double *ratio = malloc(sizeof(double) * (size_t)max_reps);
  if (!t || !ratio) bench_fail(__FILE__, __LINE__, "out of host memory");

  for (int s = 0; s < num_sizes; s++) {
    size_t n = sizes[s].bytes / sizeof(float);
    int reps = (int)(sizes[s].reps * reps_scale);
    if (reps < 1) reps = 1;
    for (int m = 0; m < num_mem; m++) {
      float *h = host[m];
      int trips = 0;
      fill(h, n);
      /* Warm-up: cubind's scratch grows to this size, pages are touched, clocks settle. */
      for (int impl = 0; impl < NUM_IMPL; impl++, trips++) round_trip(impl, h, n);
      for (int r = 0; r < reps; r++)
        for (int j = 0; j < NUM_IMPL; j++, trips++) {
          int impl = (r + j) % NUM_IMPL; /* alternate which goes first */
          t[impl * reps + r] = round_trip(impl, h, n);
        }
      verify(h, n, trips, mem_names[m]);

      for (int r = 0; r < reps; r++) ratio[r] = t[I_DRIVER * reps + r] / t[I_CUBIND * reps + r];
      double med[NUM_IMPL], gbs[NUM_IMPL];
      for (int impl = 0; impl < NUM_IMPL; impl++) {
        med[impl] = bench_median(&t[impl * reps], (size_t)reps);
        gbs[impl] = 2.0 * (double)sizes[s].bytes / med[impl]; /* bytes per ns = GB/s */
        bench_result("call_transfer", sizes[s].name, variant_name(impl, label),
                     m == M_PAGEABLE ? "us_pageable" : "us_pinned", med[impl] / 1000.0, "us");
        bench_result("call_transfer", sizes[s].name, variant_name(impl, label),
                     m == M_PAGEABLE ? "GBps_pageable" : "GBps_pinned", gbs[impl], "GB/s");
      }
      double r = bench_median(ratio, (size_t)reps);
      bench_result("call_transfer", sizes[s].name, variant_name(I_CUBIND, label),
                   m == M_PAGEABLE ? "speedup_vs_driver_pageable" : "speedup_vs_driver_pinned", r,
                   "x");
      printf("%-7s %-9s %12.1f %12.1f %12.2f %12.2f %10.3f\n", sizes[s].name, mem_names[m],
             med[I_CUBIND] / 1000.0, med[I_DRIVER] / 1000.0, gbs[I_CUBIND], gbs[I_DRIVER], r);
    }
  }

  free(ratio);
  free(t);
  free(host[M_PAGEABLE]);
  CHECK_CB(cubind_free_host(host[M_PINNED]));
  CHECK_CU(bench_cu.cuMemFree(dev_buf));
  CHECK_CB(cubind_release_scratch());
  bench_write_results(out);
  return 0;
}
