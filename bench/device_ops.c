/*
 * device_ops: device-resident throughput of cubind's elementwise kernels, cubind::array and
 * reductions, against a cuMemcpyDtoD and CUB on the same data in the same run.
 *
 * N floats per array (default 64M: 256 MiB, far beyond any L2), allocated once as cubind_arrays
 * whose device memory the raw kernels, the copy and CUB use as well. Cases:
 *
 *   copy        cuMemcpyDtoD of N floats (reads and writes 256 MiB): the reference
 *   vector_add  CUBIND_VECTORIZE vector_add_launch (cfg NULL: cubind's launch shape; and a cfg
 *               with one thread per element, cubind_config_1d(N, 256)), cubind_array_add
 *   lin_comb    CUBIND_ELEMENTWISE lin_comb_launch (cfg NULL), cubind_array_axpby
 *   scale       cubind_array_scale
 *   sum         CUBIND_REDUCTION sum_f32_launch (cfg NULL, result on the device),
 *               cubind_array_sum (its result copied to the host, as the call returns it),
 *               cub::DeviceReduce::Sum (temporary storage allocated once; device_ops_cub.cu)
 *
 * Each case is timed with CUDA events (cubind_timer) on the legacy default stream, where all of
 * them run. The cases take turns: every round runs each case once, so a drift of the clocks
 * touches all alike; `--reps` rounds (default 20) after 2 warm-up rounds. Before each timed
 * run, an untimed memset of twice the L2's size leaves the L2 in the same state for every case
 * (as nvbench does): without it, a case inherited what the case before it left there, and a sum
 * run after an elementwise case first wrote back up to an L2 (50 MB on an H100) of that case's
 * output, while CUB's sum ran after a read-only sum. Per case: the median, 10th and 90th
 * percentile of GB/s (bytes read + bytes written, 1e9 bytes per GB; reductions
 * read only), and
 *   vs copy   its median GB/s over the copy's: the copy's time for the same number of bytes over
 *             this case's time (> 1: faster than the driver moves the same bytes)
 *   vs CUB    for reductions, the median GB/s over CUB's (> 1: faster than CUB)
 *
 * Checks (exit 1 on any mismatch): every elementwise output is poisoned (0xFF bytes: NaN) before
 * one run of its case and then compared, element by element, with the CPU's result on random
 * inputs (exact for +, *; lin_comb and axpby within a few float epsilons, nvcc fuses a multiply
 * and the add); each sum against a double-precision sum on the CPU within a relative 1e-4 (the
 * inputs are in [0, 1): no cancellation; float sums of 64M such values are off by about 1e-6);
 * and the CUBIND_REDUCTION sum must give the same bits in every round (docs/arrays.md).
 *
 * The CUDA runtime (for CUB) and cubind share device 0's primary context: cubind makes it
 * current on this thread before the runtime starts, the runtime uses the current context, and
 * the program checks that the context is still the same afterwards.
 *
 * Usage: device_ops [--n N] [--reps R] [results.csv|results.json]
 */
#include "bench_common.h"
#include "device_ops_kernels.cubind.h"
#include "vectorize_kernels.cubind.h"

#include <cubind/array.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* device_ops_cub.cu: 0 or a cudaError_t, with its name in *error_name. */
int cub_sum_init(int *device, const char **error_name);
int cub_sum_temp_bytes(size_t n, size_t *bytes, const char **error_name);
int cub_sum(void *temp, size_t temp_bytes, const float *in, float *result, size_t n,
            CUstream stream, const char **error_name);

#define ALPHA 2.5f
#define BETA (-1.25f)
#define WARMUP_ROUNDS 2
#define SUM_TOLERANCE 1e-4

/* Everything the cases work on. */
typedef struct ops_state {
  size_t n;
  cubind_array a, b, out; /* a in [0, 1), b in [-1, 1); out: every elementwise case's output */
  float *sum_cubind, *sum_cub; /* device: one float each */
  void *cub_temp;
  size_t cub_temp_bytes;
  void *l2_reset; /* written before every timed run (see above) */
  size_t l2_reset_bytes;
  double array_sum; /* cubind_array_sum's last result */
} ops_state;

typedef void (*case_fn)(ops_state *s);

static void run_copy(ops_state *s) {
  CHECK_CU(bench_cu.cuMemcpyDtoD((CUdeviceptr)s->out.data, (CUdeviceptr)s->a.data,
                                 s->n * sizeof(float)));
}
static void run_vector_add(ops_state *s) {
  CHECK_CB(vector_add_launch(NULL, s->a.data, s->b.data, s->out.data, s->n));
}
static void run_vector_add_1d(ops_state *s) {
  cubind_config cfg = cubind_config_1d(s->n, 256); /* one thread per element, legacy stream */
  CHECK_CB(vector_add_launch(&cfg, s->a.data, s->b.data, s->out.data, s->n));
}
static void run_array_add(ops_state *s) { CHECK_CB(cubind_array_add(&s->out, &s->a, &s->b)); }
static void run_lin_comb(ops_state *s) {
  CHECK_CB(lin_comb_launch(NULL, ALPHA, s->a.data, BETA, s->b.data, s->out.data, s->n));
}
static void run_array_axpby(ops_state *s) {
  CHECK_CB(cubind_array_axpby(&s->out, ALPHA, &s->a, BETA, &s->b));
}
static void run_array_scale(ops_state *s) { CHECK_CB(cubind_array_scale(&s->out, ALPHA, &s->a)); }
static void run_sum(ops_state *s) {
  CHECK_CB(sum_f32_launch(NULL, s->sum_cubind, s->a.data, s->n));
}
static void run_array_sum(ops_state *s) { CHECK_CB(cubind_array_sum(&s->a, &s->array_sum)); }
static void run_cub_sum(ops_state *s) {
  const char *name = "?";
  int e = cub_sum(s->cub_temp, s->cub_temp_bytes, s->a.data, s->sum_cub, s->n, NULL, &name);
  if (e != 0) bench_fail(__FILE__, __LINE__, "cub::DeviceReduce::Sum failed: %s (%d)", name, e);
}

/* What an elementwise case's output must hold. */
typedef enum expect { EXPECT_COPY, EXPECT_ADD, EXPECT_LIN_COMB, EXPECT_SCALE, EXPECT_SUM } expect;

typedef struct op_case {
  const char *op;      /* the CSV's case (with N), the table's group */
  const char *variant; /* the CSV's variant, the table's row */
  int arrays;          /* arrays of N floats read + written per run */
  expect check;
  case_fn run;
  double *gbps; /* one sample per round */
} op_case;

static op_case cases[] = {
    {"copy", "cuMemcpyDtoD", 2, EXPECT_COPY, run_copy, NULL},
    {"vector_add", "vector_add_launch", 3, EXPECT_ADD, run_vector_add, NULL},
    {"vector_add", "vector_add_launch_1d", 3, EXPECT_ADD, run_vector_add_1d, NULL},
    {"vector_add", "cubind_array_add", 3, EXPECT_ADD, run_array_add, NULL},
    {"lin_comb", "lin_comb_launch", 3, EXPECT_LIN_COMB, run_lin_comb, NULL},
    {"lin_comb", "cubind_array_axpby", 3, EXPECT_LIN_COMB, run_array_axpby, NULL},
    {"scale", "cubind_array_scale", 2, EXPECT_SCALE, run_array_scale, NULL},
    {"sum", "sum_f32_launch", 1, EXPECT_SUM, run_sum, NULL},
    {"sum", "cubind_array_sum", 1, EXPECT_SUM, run_array_sum, NULL},
    {"sum", "cub_DeviceReduce_Sum", 1, EXPECT_SUM, run_cub_sum, NULL},
};
enum { NUM_CASES = sizeof cases / sizeof cases[0], CASE_COPY = 0, CASE_CUB = NUM_CASES - 1 };

/* xorshift64*: the same inputs on every run. */
static uint64_t rng_state = 20261122u;
static float next_unit(void) { /* [0, 1), 24 random bits: exact in a float */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (float)((uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 32) >> 8) *
         (1.0f / 16777216.0f);
}

/* Mismatches of an elementwise output against the CPU's result; prints the first few. */
static size_t check_output(const op_case *c, const float *got, const float *a, const float *b,
                           size_t n) {
  size_t i, bad = 0;
  for (i = 0; i < n; i++) {
    double want, bound = 0.0;
    switch (c->check) {
    case EXPECT_COPY: want = a[i]; break;
    case EXPECT_ADD: want = a[i] + b[i]; break;     /* float + float: one rounding both sides */
    case EXPECT_SCALE: want = ALPHA * a[i]; break;  /* likewise */
    default:                                        /* lin_comb: the exact value, and a bound */
      want = (double)ALPHA * a[i] + (double)BETA * b[i];
      bound = 4.0 * FLT_EPSILON * (fabs((double)ALPHA * a[i]) + fabs((double)BETA * b[i]));
      break;
    }
    if (!(fabs((double)got[i] - want) <= bound)) {
      if (bad < 5)
        fprintf(stderr, "%s: out[%zu] = %.9g, want %.9g (within %.3g)\n", c->variant, i,
                (double)got[i], want, bound);
      bad++;
    }
  }
  if (bad) fprintf(stderr, "%s: %zu of %zu elements differ\n", c->variant, bad, n);
  return bad;
}

/* The result of a sum case's last run. */
static double sum_result(const op_case *c, ops_state *s) {
  float f;
  if (c->run == run_array_sum) return s->array_sum;
  CHECK_CB(cubind_from_device(&f, c->run == run_sum ? s->sum_cubind : s->sum_cub, sizeof f));
  return (double)f;
}

static double median_of(const op_case *c, int reps) { return bench_median(c->gbps, (size_t)reps); }

int main(int argc, char **argv) {
  size_t n = (size_t)64 << 20, i, bad = 0;
  int reps = 20, arg, round, k, device = -1, rt_device = -1;
  const char *results = NULL, *rt_name = "?";
  ops_state s;
  float *ha, *hb, *host_out, first_sum = 0.0f;
  double cpu_sum = 0.0, copy_median;
  CUcontext ctx = NULL, primary = NULL, after = NULL;
  CUdevice dev0;
  cubind_timer timer = {0};
  char case_name[48];

  for (arg = 1; arg < argc; arg++) {
    if (strcmp(argv[arg], "--n") == 0 && arg + 1 < argc) n = strtoull(argv[++arg], NULL, 10);
    else if (strcmp(argv[arg], "--reps") == 0 && arg + 1 < argc) reps = atoi(argv[++arg]);
    else if (argv[arg][0] == '-') {
      fprintf(stderr, "usage: device_ops [--n N] [--reps R] [results.csv|results.json]\n");
      return 2;
    } else results = argv[arg];
  }
  if (n == 0 || reps < 1) {
    fprintf(stderr, "device_ops: N and R must be at least 1\n");
    return 2;
  }
  bench_require_gpu();
  bench_driver_load();
  memset(&s, 0, sizeof s);
  s.n = n;

  /* One context for cubind and the runtime: device 0's primary context, current here. */
  CHECK_CB(cubind_get_device(&device)); /* makes cubind's context current on this thread */
  CHECK_CU(bench_cu.cuCtxGetCurrent(&ctx));
  CHECK_CU(bench_cu.cuDeviceGet(&dev0, 0));
  CHECK_CU(bench_cu.cuDevicePrimaryCtxRetain(&primary, dev0));
  if (device != 0 || ctx != primary)
    bench_fail(__FILE__, __LINE__, "cubind is not in device 0's primary context (device %d)",
               device);
  if (cub_sum_init(&rt_device, &rt_name) != 0)
    bench_fail(__FILE__, __LINE__, "starting the CUDA runtime failed: %s", rt_name);
  CHECK_CU(bench_cu.cuCtxGetCurrent(&after));
  if (after != ctx || rt_device != 0)
    bench_fail(__FILE__, __LINE__,
               "the CUDA runtime is not in cubind's context (runtime device %d)", rt_device);

  /* The data: host inputs, device arrays, CUB's temporary storage. */
  ha = malloc(n * sizeof *ha);
  hb = malloc(n * sizeof *hb);
  host_out = malloc(n * sizeof *host_out);
  if (!ha || !hb || !host_out)
    bench_fail(__FILE__, __LINE__, "no host memory for 3 x %zu floats", n);
  for (i = 0; i < n; i++) {
    ha[i] = next_unit();
    hb[i] = 2.0f * next_unit() - 1.0f;
    cpu_sum += ha[i];
  }
  CHECK_CB(cubind_array_to_gpu(&s.a, ha, n, CUBIND_F32));
  CHECK_CB(cubind_array_to_gpu(&s.b, hb, n, CUBIND_F32));
  CHECK_CB(cubind_array_empty(&s.out, n, CUBIND_F32));
  CHECK_CB(cubind_malloc((void **)&s.sum_cubind, sizeof(float)));
  CHECK_CB(cubind_malloc((void **)&s.sum_cub, sizeof(float)));
  if (cub_sum_temp_bytes(n, &s.cub_temp_bytes, &rt_name) != 0)
    bench_fail(__FILE__, __LINE__, "cub::DeviceReduce::Sum's temporary size: %s", rt_name);
  CHECK_CB(cubind_malloc(&s.cub_temp, s.cub_temp_bytes ? s.cub_temp_bytes : 1));
  {
    int l2 = 0;
    CHECK_CU(bench_cu.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev0));
    s.l2_reset_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
    CHECK_CB(cubind_malloc(&s.l2_reset, s.l2_reset_bytes));
  }
  CHECK_CB(cubind_timer_create(&timer));
  CHECK_CB(cubind_synchronize());

  printf("device_ops: N = %zu floats (%.0f MiB per array), %d rounds after %d warm-up rounds, "
         "CUDA events on the legacy default stream\n",
         n, (double)(n * sizeof(float)) / 1048576.0, reps, WARMUP_ROUNDS);

  /* Correctness first: one run of each case on poisoned outputs, checked on the CPU. */
  for (k = 0; k < NUM_CASES; k++) {
    op_case *c = &cases[k];
    c->gbps = malloc((size_t)reps * sizeof *c->gbps);
    if (!c->gbps) bench_fail(__FILE__, __LINE__, "out of host memory");
    if (c->check == EXPECT_SUM) {
      double got;
      CHECK_CB(cubind_memset_d8(s.sum_cubind, 0xFF, sizeof(float)));
      CHECK_CB(cubind_memset_d8(s.sum_cub, 0xFF, sizeof(float)));
      s.array_sum = NAN;
      c->run(&s);
      got = sum_result(c, &s);
      if (!(fabs(got - cpu_sum) <= SUM_TOLERANCE * fabs(cpu_sum))) {
        fprintf(stderr, "%s: sum %.9g, the CPU's (double) %.9g: relative difference %.3g\n",
                c->variant, got, cpu_sum, fabs(got - cpu_sum) / fabs(cpu_sum));
        bad++;
      }
      if (c->run == run_sum) first_sum = (float)got;
    } else {
      CHECK_CB(cubind_memset_d8(s.out.data, 0xFF, n * sizeof(float)));
      c->run(&s);
      CHECK_CB(cubind_array_get(&s.out, host_out));
      bad += check_output(c, host_out, ha, hb, n) != 0;
    }
  }

  /* The rounds. */
  for (round = -WARMUP_ROUNDS; round < reps; round++) {
    for (k = 0; k < NUM_CASES; k++) {
      op_case *c = &cases[k];
      float ms;
      CHECK_CB(cubind_memset_d8(s.l2_reset, (unsigned char)(round + k), s.l2_reset_bytes));
      CHECK_CB(cubind_timer_start(&timer, NULL));
      c->run(&s);
      CHECK_CB(cubind_timer_stop(&timer, &ms));
      if (round >= 0)
        c->gbps[round] = (double)c->arrays * (double)(n * sizeof(float)) / ((double)ms * 1e6);
      if (c->run == run_sum) { /* the same bits every time (a fixed order of combining) */
        float again;
        CHECK_CB(cubind_from_device(&again, s.sum_cubind, sizeof again));
        if (memcmp(&again, &first_sum, sizeof again) != 0) {
          fprintf(stderr, "sum_f32_launch: round %d gave %.9g, the first run %.9g\n", round,
                  (double)again, (double)first_sum);
          bad++;
        }
      }
    }
  }

  /* The table. */
  copy_median = median_of(&cases[CASE_COPY], reps);
  printf("GB/s = (bytes read + bytes written) / time; vs copy = GB/s / cuMemcpyDtoD's GB/s;\n"
         "vs CUB = GB/s / cub::DeviceReduce::Sum's GB/s (> 1: faster)\n");
  printf("%-11s %-22s %8s %10s %10s %10s %8s %8s\n", "op", "variant", "MiB", "GB/s", "p10",
         "p90", "vs copy", "vs CUB");
  for (k = 0; k < NUM_CASES; k++) {
    op_case *c = &cases[k];
    double med = median_of(c, reps), p10 = bench_percentile(c->gbps, (size_t)reps, 10.0),
           p90 = bench_percentile(c->gbps, (size_t)reps, 90.0);
    double mib = (double)c->arrays * (double)(n * sizeof(float)) / 1048576.0;
    char vs_cub[16] = "";
    if (c->check == EXPECT_SUM)
      snprintf(vs_cub, sizeof vs_cub, "%.3f", med / median_of(&cases[CASE_CUB], reps));
    printf("%-11s %-22s %8.0f %10.1f %10.1f %10.1f %8.3f %8s\n", c->op, c->variant, mib, med,
           p10, p90, med / copy_median, vs_cub);
    snprintf(case_name, sizeof case_name, "%s %zu", c->op, n);
    bench_result("device_ops", case_name, c->variant, "GBps_median", med, "GB/s");
    bench_result("device_ops", case_name, c->variant, "GBps_p10", p10, "GB/s");
    bench_result("device_ops", case_name, c->variant, "GBps_p90", p90, "GB/s");
    bench_result("device_ops", case_name, c->variant, "ratio_vs_copy", med / copy_median, "x");
    if (c->check == EXPECT_SUM)
      bench_result("device_ops", case_name, c->variant, "ratio_vs_cub",
                   med / median_of(&cases[CASE_CUB], reps), "x");
  }
  printf("sums: CPU (double) %.9g; every output and sum checked (%s)\n", cpu_sum,
         bad ? "MISMATCHES" : "all match");

  for (k = 0; k < NUM_CASES; k++) free(cases[k].gbps);
  CHECK_CB(cubind_timer_destroy(&timer));
  CHECK_CB(cubind_free(s.l2_reset));
  CHECK_CB(cubind_free(s.cub_temp));
  CHECK_CB(cubind_free(s.sum_cub));
  CHECK_CB(cubind_free(s.sum_cubind));
  CHECK_CB(cubind_array_free(&s.out));
  CHECK_CB(cubind_array_free(&s.b));
  CHECK_CB(cubind_array_free(&s.a));
  free(ha);
  free(hb);
  free(host_out);
  if (bad) bench_fail(__FILE__, __LINE__, "%zu results differ from the CPU's", bad);
  bench_write_results(results);
  return 0;
}
