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
#include "example_check.h"

#include "doublify_inout.cubind.h"

int main(void) {
  float a[16], original[16], b[16], want[16];
  cubind_config cfg = {{1, 1, 1}, {4, 4, 1}, 0, 0, {0, 0, 0}, 0};
  size_t bad = 0;
  int i;

  example_require_gpu("doublify_inout");
  example_seed("doublify_inout");
  example_fill_random(original, 16, -10.0f, 10.0f);
  for (i = 0; i < 16; i++) want[i] = 2 * original[i];

  /* InOut: a is copied in, doubled in place, copied back. */
  memcpy(a, original, sizeof a);
  EXAMPLE_CHECK(doublify_call(&cfg, a, 16));
  bad += example_compare_floats("InOut a", a, want, 16, 0);

  /* In + Out: a is only read; b, poisoned first, must come back fully written. */
  memcpy(a, original, sizeof a);
  example_poison(b, sizeof b);
  EXAMPLE_CHECK(doublify_into_call(&cfg, a, 16, b, 16));
  bad += example_compare_floats("Out b", b, want, 16, 0);
  bad += example_compare_floats("In a (unchanged)", a, original, 16, 0);

  return example_finish("doublify_inout", bad);
}
