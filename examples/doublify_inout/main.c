/*
 * Example 2, PyCUDA's tutorial "Abstracting Away the Complications": doublify without explicit
 * device memory.
 *
 *   PyCUDA                                         cubind
 *   func(cuda.InOut(a), block=(4, 4, 1))           doublify_call(&cfg, a, 16)
 *   func(cuda.In(a), cuda.Out(b), block=(4,4,1))   doublify_into_call(&cfg, a, 16, b, 16)
 *
 * The annotated pointers have no _N(count), so each takes its element count right after it.
 */
#include "gpu_check.h"

#include "doublify_inout.cubind.h"

int main(void) {
  float a[16], original[16], b[16], want[16];
  cubind_config cfg = {{1, 1, 1}, {4, 4, 1}, 0, 0, {0, 0, 0}, 0};
  size_t bad = 0;
  int i;

  gpu_require_gpu("doublify_inout");
  gpu_seed("doublify_inout");
  gpu_fill_random(original, 16, -10.0f, 10.0f);
  for (i = 0; i < 16; i++) want[i] = 2 * original[i];

  /* InOut: a is copied in, doubled in place, copied back. */
  memcpy(a, original, sizeof a);
  GPU_CHECK(doublify_call(&cfg, a, 16));
  bad += gpu_compare_floats("InOut a", a, want, 16, 0);

  /* In + Out: a is only read; b, poisoned first, must come back fully written. */
  memcpy(a, original, sizeof a);
  gpu_poison(b, sizeof b);
  GPU_CHECK(doublify_into_call(&cfg, a, 16, b, 16));
  bad += gpu_compare_floats("Out b", b, want, 16, 0);
  bad += gpu_compare_floats("In a (unchanged)", a, original, 16, 0);

  return gpu_finish("doublify_inout", bad);
}
