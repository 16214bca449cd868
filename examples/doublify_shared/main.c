/*
 * Example 3: the shared-memory version of doublify, with a static __shared__ array and with
 * dynamic shared memory sized by the launch (cfg.shared_bytes, PyCUDA's shared=).
 */
#include "gpu_check.h"

#include "doublify_shared.cubind.h"

int main(void) {
  float original[16], a[16], want[16];
  cubind_config cfg = {{1, 1, 1}, {4, 4, 1}, 0, 0, {0, 0, 0}, 0};
  size_t bad = 0;
  int i;

  gpu_require_gpu("doublify_shared");
  gpu_seed("doublify_shared");
  gpu_fill_random(original, 16, -10.0f, 10.0f);

  memcpy(a, original, sizeof a);
  for (i = 0; i < 16; i++) want[i] = 2 * original[i];
  GPU_CHECK(doublify_shared_call(&cfg, a, 16));
  bad += gpu_compare_floats("static shared", a, want, 16, 0);

  memcpy(a, original, sizeof a);
  for (i = 0; i < 16; i++) want[i] = 2 * original[(i + 1) % 16]; /* the rotated tile */
  cfg.shared_bytes = 16 * sizeof(float);
  GPU_CHECK(doublify_dynamic_shared_call(&cfg, a, 16));
  bad += gpu_compare_floats("dynamic shared", a, want, 16, 0);

  return gpu_finish("doublify_shared", bad);
}
