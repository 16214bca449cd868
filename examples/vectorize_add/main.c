/*
 * Example 12: numba's vectorAdd, C = vectorAdd(A, B), over host arrays of 1000000 random floats:
 * vector_add_call copies A and B in, runs the kernel with the shape cubind picks (cfg NULL) and
 * copies C out.
 */
#include "example_check.h"

#include "vectorize_add.cubind.h"

enum { N = 1000000 };

int main(void) {
  static float a[N], b[N], c[N], want[N];
  int i;

  example_require_gpu("vectorize_add");
  example_seed("vectorize_add");
  example_fill_random(a, N, -100.0f, 100.0f);
  example_fill_random(b, N, -100.0f, 100.0f);
  for (i = 0; i < N; i++) want[i] = a[i] + b[i]; /* one rounding on both sides: exact match */
  example_poison(c, sizeof c);

  EXAMPLE_CHECK(vector_add_call(NULL, a, b, c, N)); /* C = vectorAdd(A, B) */
  printf("vectorize_add: n = %d, c[0] = %g + %g = %g\n", N, a[0], b[0], c[0]);
  return example_finish("vectorize_add", example_compare_floats("c", c, want, N, 0));
}
