/*
 * Example 6, PyCUDA's front page: multiply_them on 400 elements,
 *   multiply_them(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))
 * and on a 20x10 matrix with a 2-D grid of 4x4 blocks (3 x 5 blocks: 12 x 20 threads, so the
 * last columns' threads must stay idle; the poisoned output shows any element left unwritten).
 */
#include "example_check.h"

#include "multiply_them.cubind.h"

enum { N = 400, ROWS = 20, COLS = 10 };

int main(void) {
  float a[N], b[N], dest[N], want[N];
  cubind_config cfg = {{1, 1, 1}, {N, 1, 1}, 0, 0, {0, 0, 0}, 0};
  cubind_config cfg_2d = {{(COLS + 3) / 4, (ROWS + 3) / 4, 1}, {4, 4, 1}, 0, 0, {0, 0, 0}, 0};
  size_t bad = 0;
  int i;

  example_require_gpu("multiply_them");
  example_seed("multiply_them");
  example_fill_random(a, N, -10.0f, 10.0f);
  example_fill_random(b, N, -10.0f, 10.0f);
  for (i = 0; i < N; i++) want[i] = a[i] * b[i]; /* one rounding on both sides: exact match */

  example_poison(dest, sizeof dest);
  EXAMPLE_CHECK(multiply_them_call(&cfg, dest, N, a, N, b, N));
  bad += example_compare_floats("dest (400)", dest, want, N, 0);

  /* The first ROWS * COLS elements, as a matrix. */
  example_poison(dest, sizeof dest);
  EXAMPLE_CHECK(multiply_them_2d_call(&cfg_2d, dest, a, b, COLS, ROWS));
  bad += example_compare_floats("dest (20x10)", dest, want, ROWS * COLS, 0);

  return example_finish("multiply_them", bad);
}
