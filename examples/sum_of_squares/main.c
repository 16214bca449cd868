/*
 * Example 4: the sum of squares of a 4000x4000 float array, reduced on the GPU with atomicAdd
 * from shared memory, checked against a CPU sum and timed against it (cubind_timer is PyCUDA's
 * prepared_timed_call).
 */
#include "example_check.h"

#include <float.h>

#include "sum_of_squares.cubind.h"

enum { ROWS = 4000, COLS = 4000, BLOCK = 256, GRID = 256 };

int main(void) {
  const size_t n = (size_t)ROWS * COLS;
  const size_t per_thread = (n + (size_t)BLOCK * GRID - 1) / ((size_t)BLOCK * GRID);
  cubind_config cfg = {{GRID, 1, 1}, {BLOCK, 1, 1}, 0, 0, {0, 0, 0}, 0};
  cubind_timer timer = {0};
  float *a = malloc(n * sizeof *a);
  float gpu_sum, gpu_ms;
  void *a_gpu = NULL, *sum_gpu = NULL;
  double cpu_sum = 0.0, cpu_ms, rel_err, tolerance;
  size_t i;

  example_require_gpu("sum_of_squares");
  example_seed("sum_of_squares");
  if (!a) {
    fprintf(stderr, "sum_of_squares: out of host memory\n");
    return 1;
  }
  example_fill_random(a, n, -1.0f, 1.0f);

  EXAMPLE_CHECK(cubind_malloc(&a_gpu, n * sizeof *a));
  EXAMPLE_CHECK(cubind_malloc(&sum_gpu, sizeof gpu_sum));
  EXAMPLE_CHECK(cubind_to_device(a_gpu, a, n * sizeof *a));
  EXAMPLE_CHECK(cubind_memset_d8(sum_gpu, 0, sizeof gpu_sum));
  EXAMPLE_CHECK(cubind_preload()); /* load the kernels now, so that the timing leaves loading out */

  EXAMPLE_CHECK(cubind_timer_create(&timer));
  EXAMPLE_CHECK(cubind_timer_start(&timer, cfg.stream));
  EXAMPLE_CHECK(sum_of_squares_launch(&cfg, (const float *)a_gpu, (int)n, (float *)sum_gpu));
  EXAMPLE_CHECK(cubind_timer_stop(&timer, &gpu_ms));
  EXAMPLE_CHECK(cubind_timer_destroy(&timer));
  example_poison(&gpu_sum, sizeof gpu_sum);
  EXAMPLE_CHECK(cubind_from_device(&gpu_sum, sum_gpu, sizeof gpu_sum));
  EXAMPLE_CHECK(cubind_free(a_gpu));
  EXAMPLE_CHECK(cubind_free(sum_gpu));

  cpu_ms = example_now_ms();
  for (i = 0; i < n; i++) cpu_sum += (double)a[i] * a[i]; /* exact squares, double sums */
  cpu_ms = example_now_ms() - cpu_ms;
  free(a);

  /*
   * Tolerance: every term is >= 0, so float summation loses no digits to cancellation, and the
   * relative error is at most (number of additions in the longest chain) * 2^-24: a thread adds
   * per_thread squares, a block adds BLOCK thread sums, the result adds GRID block sums.
   * FLT_EPSILON is 2^-23, so this allows twice that worst case (about 9e-5 here); in practice
   * the error is far smaller.
   */
  tolerance = (double)(per_thread + BLOCK + GRID) * FLT_EPSILON;
  rel_err = fabs((double)gpu_sum - cpu_sum) / cpu_sum;
  printf("sum of squares of %dx%d floats: GPU %.6f in %.3f ms, CPU %.6f in %.3f ms\n", ROWS, COLS,
         (double)gpu_sum, (double)gpu_ms, cpu_sum, cpu_ms);
  printf("relative difference %.3g (tolerance %.3g)\n", rel_err, tolerance);
  return example_finish("sum_of_squares", !(rel_err <= tolerance));
}
