/*
 * implicit: every kernel of implicit.cu, none of which the source instantiates explicitly, bound
 * from nvcc's fatbin (add_gpu_kernels' default): the nine block_sum<T, BLOCK> specialisations
 * that host code launches from a switch, both combine<Op, T> ones, a plain kernel in a
 * namespace, each run through its generated _call on random inputs and checked exactly against
 * the CPU (integer-valued inputs keep every sum exact, whatever the order of the additions).
 * The arch-guarded kernel in the code this GPU runs writes that code's __CUDA_ARCH__ (the other
 * one, absent from that code, is arch_guard.c's: its failure is a CUDA error on purpose, which
 * compute-sanitizer would report).
 */
#include "gpu_check.h"

#include "implicit.cubind.h"

enum { N = 10007 }; /* not a multiple of any block size */

static size_t bad;

/* Random whole numbers in [-1000, 1000]: exact as float, double and int, and in their sums. */
static int whole(void) { return (int)(gpu_rand_u32() % 2001u) - 1000; }

/* Runs block_sum<T, BLOCK> through FN (its _call) and compares every block's sum. */
#define CHECK_BLOCK_SUM(T, BLOCK, FN)                                                             \
  do {                                                                                           \
    static T in[N], out[(N + (BLOCK)-1) / (BLOCK)];                                              \
    cubind_config cfg = cubind_config_1d(N, (BLOCK));                                            \
    int i, blocks = (N + (BLOCK)-1) / (BLOCK), wrong = 0;                                        \
    for (i = 0; i < N; i++) in[i] = (T)whole();                                                  \
    gpu_poison(out, sizeof out);                                                                 \
    GPU_CHECK(FN(&cfg, in, out, N));                                                             \
    for (i = 0; i < blocks; i++) {                                                               \
      T want = 0;                                                                                \
      int j;                                                                                     \
      for (j = i * (BLOCK); j < N && j < (i + 1) * (BLOCK); j++) want += in[j];                  \
      if (out[i] != want) {                                                                      \
        if (wrong++ < 3)                                                                         \
          fprintf(stderr, "%s: block %d: got %g, want %g\n", #FN, i, (double)out[i],             \
                  (double)want);                                                                 \
      }                                                                                          \
    }                                                                                            \
    printf("gpu_implicit: %s: %d blocks, %d wrong\n", #FN, blocks, wrong);                       \
    bad += (size_t)wrong;                                                                        \
  } while (0)

static void check_combine(void) {
  static float fa[N], fb[N], fwant[N];
  static double da[N], db[N], dwant[N];
  cubind_config cfg = cubind_config_1d(N, 256);
  int i;
  for (i = 0; i < N; i++) { /* one correctly rounded operation on both sides: exact */
    fa[i] = gpu_rand_float(-100.0f, 100.0f);
    fb[i] = gpu_rand_float(-100.0f, 100.0f);
    fwant[i] = fa[i] + fb[i];
    da[i] = (double)gpu_rand_float(-100.0f, 100.0f);
    db[i] = (double)gpu_rand_float(-100.0f, 100.0f);
    dwant[i] = da[i] * db[i];
  }
  GPU_CHECK(combine_Add_float_call(&cfg, fa, fb, N)); /* Op::Add */
  GPU_CHECK(combine_Mul_double_call(&cfg, da, db, N)); /* Op::Mul */
  bad += gpu_compare_floats("combine<Op::Add, float>", fa, fwant, N, 0);
  for (i = 0; i < N; i++)
    if (da[i] != dwant[i] && bad++ < 3)
      fprintf(stderr, "combine<Op::Mul, double>[%d]: got %.17g, want %.17g\n", i, da[i],
              dwant[i]);
}

static void check_increment(void) {
  static float x[N], want[N];
  cubind_config cfg = cubind_config_1d(N, 128);
  int i;
  for (i = 0; i < N; i++) {
    x[i] = (float)whole();
    want[i] = x[i] + 1.0f;
  }
  GPU_CHECK(increment_call(&cfg, x, N));
  bad += gpu_compare_floats("samples::increment", x, want, N, 0);
}

/* The arch-guarded probe in the code this GPU runs writes that code's __CUDA_ARCH__. */
static void check_arch_probe(void) {
  cubind_kernel_attributes attributes;
  cubind_config one = cubind_config_1d(1, 1);
  int arch = -1;
  GPU_CHECK(increment_attributes(&attributes)); /* the SASS this GPU runs: 80 or 90 */
  printf("gpu_implicit: this GPU runs the sm_%d code\n", attributes.binary_version);
  if (attributes.binary_version >= 90)
    GPU_CHECK(arch_probe_sm90_call(&one, &arch));
  else
    GPU_CHECK(arch_probe_pre_sm90_call(&one, &arch));
  if (arch != attributes.binary_version * 10) {
    fprintf(stderr, "arch probe: got __CUDA_ARCH__ %d, want %d\n", arch,
            attributes.binary_version * 10);
    bad++;
  }
}

int main(void) {
  gpu_require_gpu("gpu_implicit");
  gpu_seed("gpu_implicit");
  CHECK_BLOCK_SUM(float, 64, block_sum_float_64_call);
  CHECK_BLOCK_SUM(float, 128, block_sum_float_128_call);
  CHECK_BLOCK_SUM(float, 256, block_sum_float_256_call);
  CHECK_BLOCK_SUM(double, 64, block_sum_double_64_call);
  CHECK_BLOCK_SUM(double, 128, block_sum_double_128_call);
  CHECK_BLOCK_SUM(double, 256, block_sum_double_256_call);
  CHECK_BLOCK_SUM(int, 64, block_sum_int_64_call);
  CHECK_BLOCK_SUM(int, 128, block_sum_int_128_call);
  CHECK_BLOCK_SUM(int, 256, block_sum_int_256_call);
  check_combine();
  check_increment();
  check_arch_probe();
  return gpu_finish("gpu_implicit", bad);
}
