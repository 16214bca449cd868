/*
 * cold_cubind: the cold-start program, cubind version. From process start to the first correct
 * result: c = a + b over 1M floats through vadd_call (copy in, launch, copy out), checked on the
 * CPU. bench/cold_start.sh runs it many times and takes the median wall time; cold_runtime.cu is
 * the same program written with the CUDA runtime and <<<>>>.
 *
 * It also prints the time from entering main() to the checked result ("main_to_result_us"), which
 * leaves out the dynamic loader and process teardown; the script's wall time includes both.
 * Exit status: 0 correct, 1 wrong or a failure (message on stderr), 77 no GPU.
 */
#include "bench_common.h"
#include "cold_kernels.cubind.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int64_t t0 = bench_now_ns();
  const int n = 1 << 20;
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  if (!a || !b || !c) bench_fail(__FILE__, __LINE__, "out of host memory");
  for (int i = 0; i < n; i++) a[i] = (float)i, b[i] = (float)(2 * (i % 4096)), c[i] = -1.0f;

  cubind_config cfg = cubind_config_1d((size_t)n, 256);
  cubind_status s = vadd_call(&cfg, a, b, c, n); /* the first cubind call: loads everything */
  if (s == CUBIND_ERROR_NO_DRIVER || s == CUBIND_ERROR_NO_DEVICE) {
    printf("skipped: no GPU (%s)\n", cubind_last_error());
    return BENCH_SKIP;
  }
  CHECK_CB(s);
  for (int i = 0; i < n; i++)
    if (c[i] != a[i] + b[i])
      bench_fail(__FILE__, __LINE__, "c[%d] = %g, expected %g", i, (double)c[i],
                 (double)(a[i] + b[i]));
  int64_t t1 = bench_now_ns();
  printf("ok main_to_result_us %.1f\n", (double)(t1 - t0) / 1000.0);
  free(a), free(b), free(c);
  return 0;
}
