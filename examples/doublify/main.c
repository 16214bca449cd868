/*
 * Example 1, PyCUDA's tutorial "Executing a Kernel": doublify a 4x4 float32 array, moving the
 * memory by hand.
 *
 *   PyCUDA                                   cubind
 *   a_gpu = cuda.mem_alloc(a.nbytes)         cubind_malloc(&a_gpu, sizeof a)
 *   cuda.memcpy_htod(a_gpu, a)               cubind_to_device(a_gpu, a, sizeof a)
 *   func(a_gpu, block=(4, 4, 1))             doublify_launch(&cfg, a_gpu)
 *   cuda.memcpy_dtoh(a_doubled, a_gpu)       cubind_from_device(doubled, a_gpu, sizeof doubled)
 */
#include "example_check.h"

#include "doublify.cubind.h"

int main(void) {
  float a[4][4], doubled[4][4], want[4][4];
  void *a_gpu = NULL;
  cubind_config cfg = {{1, 1, 1}, {4, 4, 1}, 0, 0, {0, 0, 0}, 0}; /* grid, block (4, 4, 1), shared, stream */
  int i, j;

  example_require_gpu("doublify");
  example_seed("doublify");
  example_fill_random(&a[0][0], 16, -10.0f, 10.0f);
  for (i = 0; i < 4; i++)
    for (j = 0; j < 4; j++) want[i][j] = 2 * a[i][j]; /* doubling is exact: compare exactly */
  example_poison(doubled, sizeof doubled);

  EXAMPLE_CHECK(cubind_malloc(&a_gpu, sizeof a));
  EXAMPLE_CHECK(cubind_to_device(a_gpu, a, sizeof a));
  EXAMPLE_CHECK(doublify_launch(&cfg, (float *)a_gpu));
  EXAMPLE_CHECK(cubind_from_device(doubled, a_gpu, sizeof doubled));
  EXAMPLE_CHECK(cubind_free(a_gpu));

  for (i = 0; i < 4; i++)
    printf("%9.4f %9.4f %9.4f %9.4f  ->  %9.4f %9.4f %9.4f %9.4f\n", a[i][0], a[i][1], a[i][2],
           a[i][3], doubled[i][0], doubled[i][1], doubled[i][2], doubled[i][3]);
  return example_finish("doublify", example_compare_floats("doubled", &doubled[0][0], &want[0][0], 16, 0));
}
