/*
 * big_shared: a block-wide reversal through 100 KiB of dynamic shared memory per block (above
 * the 48 KiB default: the runtime raises each kernel's limit to the device's opt-in), checked
 * against the CPU.
 */
#include "gpu_check.h"

#include "big_shared.cubind.h"

enum { TILE = 25600, BLOCKS = 7, N = TILE * BLOCKS }; /* 25600 floats = 100 KiB */

int main(void) {
  static float in[N], out[N], want[N];
  cubind_config cfg = cubind_config_1d(N, 1024);
  size_t bad;
  int b, j;

  gpu_require_gpu("gpu_big_shared");
  gpu_seed("gpu_big_shared");
  gpu_fill_random(in, N, -1000.0f, 1000.0f);
  for (b = 0; b < BLOCKS; b++)
    for (j = 0; j < TILE; j++) want[b * TILE + j] = in[b * TILE + TILE - 1 - j];
  cfg.grid.x = BLOCKS;
  cfg.shared_bytes = TILE * sizeof(float);
  gpu_poison(out, sizeof out);
  GPU_CHECK(tile_reverse_call(&cfg, in, out, N, TILE));
  bad = gpu_compare_floats("tile_reverse", out, want, N, 0);
  printf("gpu_big_shared: %u bytes of dynamic shared memory per block\n", cfg.shared_bytes);
  return gpu_finish("gpu_big_shared", bad);
}
