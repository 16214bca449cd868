/*
 * templates: the three explicit instantiations of scale<T> (templates.cu) are separate C
 * functions with the instantiation's types, each launching its own (mangled) kernel.
 */
#include "gpu_check.h"

#include "templates.cubind.h"

enum { N = 777 };

int main(void) {
  float f[N], f_want[N];
  double d[N], d_want[N];
  int i32[N], i_want[N], i;
  cubind_config cfg = cubind_config_1d(N, 128);
  size_t bad = 0;

  gpu_require_gpu("gpu_templates");
  gpu_seed("gpu_templates");
  for (i = 0; i < N; i++) { /* one correctly rounded multiply on both sides: compare exactly */
    f[i] = gpu_rand_float(-1000.0f, 1000.0f);
    f_want[i] = 3.0f * f[i];
    d[i] = (double)gpu_rand_float(-1000.0f, 1000.0f);
    d_want[i] = 3.0 * d[i];
    i32[i] = (int)(gpu_rand_u32() % 200001) - 100000;
    i_want[i] = 3 * i32[i];
  }
  GPU_CHECK(scale_float_call(&cfg, 3.0f, f, N));
  GPU_CHECK(scale_double_call(&cfg, 3.0, d, N));
  GPU_CHECK(scale_int_call(&cfg, 3, i32, N));
  bad += gpu_compare_floats("scale<float>", f, f_want, N, 0);
  for (i = 0; i < N; i++) {
    bad += d[i] != d_want[i];
    bad += i32[i] != i_want[i];
  }
  return gpu_finish("gpu_templates", bad);
}
