/*
 * Example 10: PyCUDA's ElementwiseKernel lin_comb (lin_comb.cu) on 50000 random floats on the
 * device, with the launch shape cubind picks (cfg NULL), as PyCUDA's
 *   lin_comb(5, a_gpu, 6, b_gpu, c_gpu)
 */
#include "example_check.h"

#include "lin_comb.cubind.h"

enum { N = 50000 };

int main(void) {
  static float x[N], y[N], z[N];
  void *dx, *dy, *dz;

  example_require_gpu("lin_comb");
  example_seed("lin_comb");
  example_fill_random(x, N, -1.0f, 1.0f);
  example_fill_random(y, N, -1.0f, 1.0f);
  example_poison(z, sizeof z);

  EXAMPLE_CHECK(cubind_malloc(&dx, sizeof x));
  EXAMPLE_CHECK(cubind_malloc(&dy, sizeof y));
  EXAMPLE_CHECK(cubind_malloc(&dz, sizeof z));
  EXAMPLE_CHECK(cubind_to_device(dx, x, sizeof x));
  EXAMPLE_CHECK(cubind_to_device(dy, y, sizeof y));
  EXAMPLE_CHECK(cubind_memset_d8(dz, 0xFF, sizeof z)); /* poison: every element must be written */
  EXAMPLE_CHECK(lin_comb_launch(NULL, 5.0f, dx, 6.0f, dy, dz, N));
  EXAMPLE_CHECK(cubind_from_device(z, dz, sizeof z));
  EXAMPLE_CHECK(cubind_free(dx));
  EXAMPLE_CHECK(cubind_free(dy));
  EXAMPLE_CHECK(cubind_free(dz));
  printf("lin_comb: n = %d, z[0] = %g (5 * %g + 6 * %g)\n", N, z[0], x[0], y[0]);
  return example_finish("lin_comb", example_compare_lin_comb("z", z, 5.0f, x, 6.0f, y, N));
}
