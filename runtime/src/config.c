/*
 * config.c: cubind_config_1d, the one-dimensional launch configuration (no dependencies).
 */
#include "internal.h"

cubind_config cubind_config_1d(size_t n, unsigned block) {
  cubind_config cfg = {{1, 1, 1}, {1, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  size_t blocks = block ? n / block + (n % block != 0) : 1;
  cfg.block.x = block;
  /* Larger than any device's grid: keep it out of range instead of wrapping to a small value. */
  cfg.grid.x = blocks == 0 ? 1 : blocks > 0xFFFFFFFFu ? 0xFFFFFFFFu : (unsigned)blocks;
  return cfg;
}
