/*
 * types: the generated stubs pass every parameter type correctly: float, double and int
 * (axpy_float, axpy_double, axpy_int), __half (as cubind_half bits) and float4 after an int
 * (16-byte alignment in the parameter buffer). Random inputs, checked against the CPU; the
 * float case through both <kernel>_launch (device pointers) and <kernel>_call (host buffers).
 */
#include "gpu_check.h"

#include "kernels.cubind.h"

enum { N = 1000 };

/* An IEEE binary16 for a float that is exactly representable as a normal half (or zero). */
static cubind_half half_from_float(float f) {
  cubind_half h;
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) == 0) {
    h.bits = (unsigned short)(bits >> 16);
  } else {
    unsigned sign = bits >> 31, exponent = (bits >> 23) & 0xff, mantissa = bits & 0x7fffff;
    h.bits = (unsigned short)((sign << 15) | ((exponent - 127 + 15) << 10) | (mantissa >> 13));
  }
  return h;
}

static float half_to_float(cubind_half h) {
  uint32_t sign = (uint32_t)(h.bits >> 15) << 31, exponent = (h.bits >> 10) & 0x1f;
  uint32_t mantissa = h.bits & 0x3ff, bits;
  float f;
  if (exponent == 0 && mantissa == 0) bits = sign;
  else if (exponent == 0x1f) bits = sign | 0x7f800000u | (mantissa << 13); /* inf, NaN */
  else if (exponent == 0) return (sign ? -1.0f : 1.0f) * (float)mantissa * (1.0f / 16777216.0f);
  else bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  memcpy(&f, &bits, sizeof f);
  return f;
}

static size_t test_float(void) {
  float x[N], y[N], got[N], want[N], a = gpu_rand_float(-4.0f, 4.0f);
  void *x_gpu = NULL, *y_gpu = NULL;
  cubind_config cfg = cubind_config_1d(N, 128);
  size_t bad = 0;
  int i;
  gpu_fill_random(x, N, -100.0f, 100.0f);
  gpu_fill_random(y, N, -100.0f, 100.0f);
  /* |a*x| < 400 and |y| < 100, so results lie below 512, where a float's ulp is at most 2^-15
     (3.1e-5). The GPU rounds a*x + y once (FMA) or twice, the reference once (the product is
     exact in double): within 2 ulps, so 1e-4 absolute. */
  for (i = 0; i < N; i++) want[i] = (float)((double)a * x[i] + y[i]);

  GPU_CHECK(cubind_malloc(&x_gpu, sizeof x));
  GPU_CHECK(cubind_malloc(&y_gpu, sizeof y));
  GPU_CHECK(cubind_to_device(x_gpu, x, sizeof x));
  GPU_CHECK(cubind_to_device(y_gpu, y, sizeof y));
  GPU_CHECK(axpy_float_launch(&cfg, a, (const float *)x_gpu, (float *)y_gpu, N));
  gpu_poison(got, sizeof got);
  GPU_CHECK(cubind_from_device(got, y_gpu, sizeof got));
  GPU_CHECK(cubind_free(x_gpu));
  GPU_CHECK(cubind_free(y_gpu));
  for (i = 0; i < N; i++)
    if (!(fabsf(got[i] - want[i]) <= 1e-4f)) {
      if (bad++ < 5) fprintf(stderr, "float launch [%d]: got %g want %g\n", i, got[i], want[i]);
    }

  memcpy(got, y, sizeof got);
  GPU_CHECK(axpy_float_call(&cfg, a, x, got, N));
  for (i = 0; i < N; i++)
    if (!(fabsf(got[i] - want[i]) <= 1e-4f)) {
      if (bad++ < 5) fprintf(stderr, "float call [%d]: got %g want %g\n", i, got[i], want[i]);
    }
  return bad;
}

static size_t test_double(void) {
  double x[N], y[N], a = (double)gpu_rand_float(-4.0f, 4.0f);
  cubind_config cfg = cubind_config_1d(N, 96);
  size_t bad = 0;
  int i;
  for (i = 0; i < N; i++) {
    x[i] = (double)gpu_rand_float(-100.0f, 100.0f);
    y[i] = (double)gpu_rand_float(-100.0f, 100.0f);
  }
  {
    double got[N];
    memcpy(got, y, sizeof got);
    GPU_CHECK(axpy_double_call(&cfg, a, x, got, N));
    /* Products of 24-bit values are exact in double; the sum rounds once either way. */
    for (i = 0; i < N; i++)
      if (got[i] != a * x[i] + y[i]) {
        if (bad++ < 5) fprintf(stderr, "double [%d]: got %.17g want %.17g\n", i, got[i], a * x[i] + y[i]);
      }
  }
  return bad;
}

static size_t test_int(void) {
  int x[N], y[N], got[N], a = (int)(gpu_rand_u32() % 201) - 100;
  cubind_config cfg = cubind_config_1d(N, 256);
  size_t bad = 0;
  int i;
  for (i = 0; i < N; i++) {
    x[i] = (int)(gpu_rand_u32() % 20001) - 10000;
    y[i] = (int)(gpu_rand_u32() % 20001) - 10000;
  }
  memcpy(got, y, sizeof got);
  GPU_CHECK(axpy_int_call(&cfg, a, x, got, N));
  for (i = 0; i < N; i++)
    if (got[i] != a * x[i] + y[i]) {
      if (bad++ < 5) fprintf(stderr, "int [%d]: got %d want %d\n", i, got[i], a * x[i] + y[i]);
    }
  return bad;
}

static size_t test_half(void) {
  cubind_half x[N], s = half_from_float(0.5f);
  float original[N];
  cubind_config cfg = cubind_config_1d(N, 64);
  size_t bad = 0;
  int i;
  for (i = 0; i < N; i++) { /* multiples of 1/4 in [-256, 256): exact in a half, as are halves */
    original[i] = (float)((int)(gpu_rand_u32() % 2048) - 1024) / 4.0f;
    x[i] = half_from_float(original[i]);
  }
  GPU_CHECK(scale_half_call(&cfg, s, x, N));
  for (i = 0; i < N; i++)
    if (half_to_float(x[i]) != 0.5f * original[i]) {
      if (bad++ < 5) fprintf(stderr, "half [%d]: got %g want %g\n", i, half_to_float(x[i]), 0.5f * original[i]);
    }
  return bad;
}

static size_t test_float4(void) {
  float4 v[N], want[N], d;
  cubind_config cfg = cubind_config_1d(N, 128);
  size_t bad = 0;
  int i;
  d.x = gpu_rand_float(-8.0f, 8.0f);
  d.y = gpu_rand_float(-8.0f, 8.0f);
  d.z = gpu_rand_float(-8.0f, 8.0f);
  d.w = gpu_rand_float(-8.0f, 8.0f);
  gpu_fill_random(&v[0].x, 4 * (size_t)N, -8.0f, 8.0f);
  for (i = 0; i < N; i++) {
    want[i].x = v[i].x + d.x;
    want[i].y = v[i].y + d.y;
    want[i].z = v[i].z + d.z;
    want[i].w = v[i].w + d.w;
  }
  GPU_CHECK(add_float4_call(&cfg, N, d, v));
  bad += gpu_compare_floats("float4", &v[0].x, &want[0].x, 4 * (size_t)N, 0);
  return bad;
}

int main(void) {
  size_t bad = 0;
  gpu_require_gpu("gpu_types");
  gpu_seed("gpu_types");
  bad += test_float();
  bad += test_double();
  bad += test_int();
  bad += test_half();
  bad += test_float4();
  return gpu_finish("gpu_types", bad);
}
