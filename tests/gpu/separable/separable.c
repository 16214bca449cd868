/*
 * gpu.separable: kernels of one add_gpu_kernels(... SEPARABLE) target call device code of its
 * other .cu file: apply_poly and apply_poly_as<T> (kernels.cu) call
 * poly() of device_math.cu and count in its __device__ variable poly_calls, which
 * device_math.cu's own kernels reset and read; scale_static and scale_anonymous, of internal
 * linkage, are found under relocatable code's __nv_static_ names. Checked against poly() on the
 * CPU; the counter shows that both modules share the one device-linked image.
 */
#include "gpu_check.h"

#include "device_math.cubind.h"
#include "kernels.cubind.h"

enum { N = 1000 };

static float poly_cpu(float x) { return (3.0f * x - 2.0f) * x + 0.5f; }

int main(void) {
  static float x[N], y[N], want[N], yf[N], ys[N], ya[N], want_scaled[N];
  static double xd[N], yd[N];
  cubind_config cfg = cubind_config_1d(N, 128), one = cubind_config_1d(1, 1);
  unsigned int calls = 0;
  size_t bad = 0;
  int i;

  gpu_require_gpu("gpu_separable");
  gpu_seed("gpu_separable");
  gpu_fill_random(x, N, -4.0f, 4.0f);
  for (i = 0; i < N; i++) {
    want[i] = poly_cpu(x[i]);
    xd[i] = (double)x[i];
  }
  gpu_poison(y, sizeof y);
  gpu_poison(yf, sizeof yf);
  gpu_poison(yd, sizeof yd);

  GPU_CHECK(reset_calls_launch(&one));
  GPU_CHECK(apply_poly_call(&cfg, x, y, N));
  GPU_CHECK(read_calls_call(&one, &calls));
  GPU_CHECK(apply_poly_as_float_call(&cfg, x, yf, N));
  GPU_CHECK(apply_poly_as_double_call(&cfg, xd, yd, N));
  memcpy(ys, x, sizeof ys);
  memcpy(ya, x, sizeof ya);
  GPU_CHECK(scale_static_call(&cfg, ys, 3.0f, N));
  GPU_CHECK(scale_anonymous_call(&cfg, ya, 0.5f, N));

  /* the same float operations on both sides, contracted or not: a few ulps */
  bad += gpu_compare_floats("apply_poly", y, want, N, 1e-5);
  bad += gpu_compare_floats("apply_poly_as<float>", yf, want, N, 1e-5);
  for (i = 0; i < N; i++)
    yf[i] = (float)yd[i];
  bad += gpu_compare_floats("apply_poly_as<double>", yf, want, N, 1e-5);
  for (i = 0; i < N; i++)
    want_scaled[i] = 3.0f * want[i];
  bad += gpu_compare_floats("scale_static", ys, want_scaled, N, 1e-5);
  for (i = 0; i < N; i++)
    want_scaled[i] = 0.5f * want[i];
  bad += gpu_compare_floats("scale_anonymous", ya, want_scaled, N, 1e-5);
  if (calls != N) {
    fprintf(stderr, "poly_calls: %u after %d calls (one image must hold one poly_calls)\n",
            calls, N);
    bad++;
  }
  return gpu_finish("gpu_separable", bad);
}
