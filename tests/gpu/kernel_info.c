/*
 * kernel_info: block_sums_attributes (registers, static shared memory, local and constant
 * memory, max threads per block as limited by __launch_bounds__(128), PTX/binary versions,
 * occupancy block size) printed and sanity-checked; block_sums_config_occupancy's
 * configuration launched and checked against the CPU; a block above __launch_bounds__ refused.
 */
#include "gpu_check.h"

#include "kernel_info.cubind.h"

enum { N = 100000 };

int main(void) {
  static int x[N];
  static long long sums[N], want[N];
  cubind_kernel_attributes a;
  cubind_config cfg, too_big = cubind_config_1d(N, 256);
  cubind_status status;
  size_t bad = 0;
  int i, blocks;

  gpu_require_gpu("gpu_kernel_info");
  gpu_seed("gpu_kernel_info");
  GPU_CHECK(block_sums_attributes(&a));
  printf("gpu_kernel_info: block_sums: %d registers, %d B static shared, %d B local, %d B const, "
         "max %d threads/block, max %d B dynamic shared, PTX %d, binary %d, occupancy block %d "
         "(min grid %d), cluster (%u,%u,%u)\n",
         a.num_regs, a.static_shared_bytes, a.local_bytes, a.const_bytes,
         a.max_threads_per_block, a.max_dynamic_shared_bytes, a.ptx_version, a.binary_version,
         a.occupancy_block_size, a.occupancy_min_grid_size, a.cluster_dims[0], a.cluster_dims[1],
         a.cluster_dims[2]);
#define EXPECT(cond)                                                                              \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      fprintf(stderr, "gpu_kernel_info: expected %s\n", #cond);                                  \
      bad++;                                                                                     \
    }                                                                                            \
  } while (0)
  EXPECT(a.num_regs > 0 && a.num_regs <= 255);
  EXPECT(a.static_shared_bytes >= 1024);
  EXPECT(a.local_bytes >= 0);
  EXPECT(a.max_threads_per_block > 0 && a.max_threads_per_block <= 128);
  EXPECT(a.binary_version >= 75);
  EXPECT(a.occupancy_block_size > 0 && a.occupancy_block_size <= a.max_threads_per_block);
  EXPECT(a.occupancy_min_grid_size > 0);
  EXPECT(a.cluster_dims[0] == 0 && a.cluster_dims[1] == 0 && a.cluster_dims[2] == 0);

  GPU_CHECK(block_sums_config_occupancy(N, 0, &cfg));
  EXPECT(cfg.block.x == (unsigned)a.occupancy_block_size);
  EXPECT((size_t)cfg.grid.x * cfg.block.x >= N && (size_t)(cfg.grid.x - 1) * cfg.block.x < N);
  blocks = (int)cfg.grid.x;
  for (i = 0; i < N; i++) x[i] = (int)(gpu_rand_u32() % 2000001u) - 1000000;
  for (i = 0; i < blocks; i++) want[i] = 0;
  for (i = 0; i < N; i++) want[i / (int)cfg.block.x] += x[i];
  gpu_poison(sums, sizeof sums);
  GPU_CHECK(block_sums_call(&cfg, x, N, sums, blocks));
  for (i = 0; i < blocks; i++)
    if (sums[i] != want[i]) {
      if (bad < 5) fprintf(stderr, "sums[%d]: got %lld, want %lld\n", i, sums[i], want[i]);
      bad++;
    }

  /* 256 threads: above __launch_bounds__(128), refused before launching */
  status = block_sums_call(&too_big, x, N, sums, (int)too_big.grid.x);
  if (status != CUBIND_ERROR_INVALID_CONFIG || !strstr(cubind_last_error(), "maximum of")) {
    fprintf(stderr, "block of 256: got %s: %s\n", cubind_status_name(status),
            cubind_last_error());
    bad++;
  } else {
    printf("gpu_kernel_info: refused as expected: %s\n", cubind_last_error());
  }
  return gpu_finish("gpu_kernel_info", bad);
}
