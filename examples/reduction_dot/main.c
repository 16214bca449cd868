/*
 * Example 11: PyCUDA's ReductionKernel dot (reduction_dot.cu) on 400000 random floats: on
 * device arrays (dot_launch, the result left on the device, as dot(x_gpu, y_gpu).get()) and on
 * host arrays (dot_call), both against a CPU sum in double; the two runs give the same bits
 * (a fixed order of combining).
 */
#include "example_check.h"

#include "reduction_dot.cubind.h"

enum { N = 400000 };

int main(void) {
  static float x[N], y[N];
  float on_device, on_host;
  double want = 0.0;
  void *dx, *dy, *dresult;
  size_t bad = 0;
  int i;

  example_require_gpu("reduction_dot");
  example_seed("reduction_dot");
  example_fill_random(x, N, -1.0f, 1.0f);
  example_fill_random(y, N, -1.0f, 1.0f);
  for (i = 0; i < N; i++) want += (double)x[i] * (double)y[i];
  example_poison(&on_device, sizeof on_device);
  example_poison(&on_host, sizeof on_host);

  EXAMPLE_CHECK(cubind_malloc(&dx, sizeof x));
  EXAMPLE_CHECK(cubind_malloc(&dy, sizeof y));
  EXAMPLE_CHECK(cubind_malloc(&dresult, sizeof(float)));
  EXAMPLE_CHECK(cubind_to_device(dx, x, sizeof x));
  EXAMPLE_CHECK(cubind_to_device(dy, y, sizeof y));
  EXAMPLE_CHECK(dot_launch(NULL, dresult, dx, dy, N));
  EXAMPLE_CHECK(cubind_from_device(&on_device, dresult, sizeof on_device));
  EXAMPLE_CHECK(dot_call(NULL, &on_host, x, y, N));
  EXAMPLE_CHECK(cubind_free(dx));
  EXAMPLE_CHECK(cubind_free(dy));
  EXAMPLE_CHECK(cubind_free(dresult));
  printf("reduction_dot: n = %d, GPU %.7g, CPU (double) %.7g\n", N, on_device, want);
  if (!(fabs(on_device - want) <= 1e-4 * fabs(want) + 1e-3)) {
    fprintf(stderr, "reduction_dot: %.9g is too far from %.9g\n", on_device, want);
    bad++;
  }
  if (memcmp(&on_device, &on_host, sizeof on_host) != 0) {
    fprintf(stderr, "reduction_dot: dot_call gave %.9g, dot_launch %.9g\n", on_host, on_device);
    bad++;
  }
  return example_finish("reduction_dot", bad);
}
