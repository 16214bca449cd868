/*
 * Example 3: the shared-memory version of doublify, with a static __shared__ array and with
 * dynamic shared memory sized by the launch (cfg.shared_bytes, PyCUDA's shared=).
 */
#include "example_check.h"

#include "doublify_shared.cubind.h"

int main(void) {
  float original[16], a[16], want[16];
  cubind_config cfg = {{1, 1, 1}, {4, 4, 1}, 0, 0, {0, 0, 0}, 0};
  size_t bad = 0;
  int i;

  example_require_gpu("doublify_shared");
  example_seed("doublify_shared");
  example_fill_random(original, 16, -10.0f, 10.0f);

  memcpy(a, original, sizeof a);
  for (i = 0; i < 16; i++) want[i] = 2 * original[i];
  EXAMPLE_CHECK(doublify_shared_call(&cfg, a, 16));
  bad += example_compare_floats("static shared", a, want, 16, 0);

  memcpy(a, original, sizeof a);
  for (i = 0; i < 16; i++) want[i] = 2 * original[(i + 1) % 16]; /* the rotated tile */
  cfg.shared_bytes = 16 * sizeof(float);
  EXAMPLE_CHECK(doublify_dynamic_shared_call(&cfg, a, 16));
  bad += example_compare_floats("dynamic shared", a, want, 16, 0);

  return example_finish("doublify_shared", bad);
}
