/*
 * Example 5: vector_add of 100 floats, with the grid computed from n: cubind_config_1d(n, 32)
 * gives ceil(100 / 32) = 4 blocks of 32 threads. The counts come from the kernel's own n
 * (CUBIND_IN_N(n) / CUBIND_OUT_N(n)), so vector_add_call takes no extra arguments.
 */
#include "example_check.h"

#include "vector_add.cubind.h"

enum { N = 100 };

int main(void) {
  float a[N], b[N], c[N], want[N];
  cubind_config cfg = cubind_config_1d(N, 32);
  int i;

  example_require_gpu("vector_add");
  example_seed("vector_add");
  example_fill_random(a, N, -100.0f, 100.0f);
  example_fill_random(b, N, -100.0f, 100.0f);
  for (i = 0; i < N; i++) want[i] = a[i] + b[i]; /* one rounding on both sides: exact match */
  example_poison(c, sizeof c);

  printf("vector_add: n = %d, grid %u x block %u\n", N, cfg.grid.x, cfg.block.x);
  EXAMPLE_CHECK(vector_add_call(&cfg, a, b, c, N));
  return example_finish("vector_add", example_compare_floats("c", c, want, N, 0));
}
