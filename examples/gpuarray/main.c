/*
 * Example 9: the tutorial's GPUArray step, (2*a_gpu).get(), with cubind::array:
 *
 *   a_gpu = gpuarray.to_gpu(numpy.random.randn(4,4).astype(numpy.float32))
 *   a_doubled = (2*a_gpu).get()
 *
 * No .cu of its own: cubind_array_scale is one of cubind::array's precompiled kernels.
 */
#include "example_check.h"

#include <cubind/array.h>

enum { N = 16 };

int main(void) {
  float a[N], doubled[N], want[N];
  cubind_array a_gpu, b_gpu = {0};
  int i;

  example_require_gpu("gpuarray");
  example_seed("gpuarray");
  example_fill_random(a, N, -3.0f, 3.0f);
  for (i = 0; i < N; i++) want[i] = 2.0f * a[i]; /* exact in binary floating point */
  example_poison(doubled, sizeof doubled);

  EXAMPLE_CHECK(cubind_array_to_gpu(&a_gpu, a, N, CUBIND_F32)); /* gpuarray.to_gpu(a) */
  EXAMPLE_CHECK(cubind_array_scale(&b_gpu, 2, &a_gpu));        /* 2*a_gpu */
  EXAMPLE_CHECK(cubind_array_get(&b_gpu, doubled));             /* .get() */
  EXAMPLE_CHECK(cubind_array_free(&a_gpu));
  EXAMPLE_CHECK(cubind_array_free(&b_gpu));
  for (i = 0; i < 4; i++)
    printf("gpuarray: %9.4f %9.4f %9.4f %9.4f\n", doubled[4 * i], doubled[4 * i + 1],
           doubled[4 * i + 2], doubled[4 * i + 3]);
  return example_finish("gpuarray", example_compare_floats("doubled", doubled, want, N, 0));
}
