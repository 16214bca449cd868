/*
 * cooperative: a grid-wide sum with this_grid().sync(), launched with
 * CUBIND_LAUNCH_COOPERATIVE, checked exactly (integers) against the CPU; a cooperative grid
 * larger than the device can hold at once is refused before launching.
 */
#include "gpu_check.h"

#include "cooperative.cubind.h"

enum { N = 1000003, BLOCKS = 8, THREADS = 256 };

int main(void) {
  static int x[N];
  long long total = 0, want = 0;
  void *partial = NULL;
  cubind_config cfg = cubind_config_1d((size_t)BLOCKS * THREADS, THREADS);
  cubind_status status;
  size_t bad = 0;
  int i, round;

  gpu_require_gpu("gpu_cooperative");
  gpu_seed("gpu_cooperative");
  for (i = 0; i < N; i++) {
    x[i] = (int)(gpu_rand_u32() % 2000001u) - 1000000;
    want += x[i];
  }
  cfg.flags = CUBIND_LAUNCH_COOPERATIVE;
  status = cubind_malloc(&partial, 4096 * sizeof(long long));
  GPU_CHECK(status);
  for (round = 0; round < 2; round++) { /* 8 blocks, then 32 */
    cfg.grid.x = round ? 32 : BLOCKS;
    total = -1;
    status = grid_sum_call(&cfg, x, N, (long long *)partial, &total);
    if (status == CUBIND_ERROR_MODULE_LOAD && strstr(cubind_last_error(), "no code for")) {
      printf("gpu_cooperative: skipped: needs sm_90 or newer: %s\n", cubind_last_error());
      return GPU_SKIP;
    }
    GPU_CHECK(status);
    if (total != want) {
      fprintf(stderr, "grid %u: sum %lld, want %lld\n", cfg.grid.x, total, want);
      bad++;
    }
  }
  cfg.grid.x = 1000000; /* far more blocks than can be resident at once */
  status = grid_sum_call(&cfg, x, N, (long long *)partial, &total);
  if (status != CUBIND_ERROR_INVALID_CONFIG || !strstr(cubind_last_error(), "cooperative")) {
    fprintf(stderr, "oversized cooperative grid: got %s: %s\n", cubind_status_name(status),
            cubind_last_error());
    bad++;
  } else {
    printf("gpu_cooperative: refused as expected: %s\n", cubind_last_error());
  }
  GPU_CHECK(cubind_free(partial));
  printf("gpu_cooperative: sum %lld\n", want);
  return gpu_finish("gpu_cooperative", bad);
}
