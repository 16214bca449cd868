/*
 * real_code: the kernels of real_code.cu (issue 13), each through its generated C functions
 * against a CPU reference on random inputs: a header's kernel and a header template, a static
 * kernel, an anonymous-namespace kernel (bound through nvcc's binary), cudaPitchedPtr and
 * cudaExtent by value, __half2 by value, FP8 values, a tag type left out of the C signature,
 * arrays of arrays (float (*)[16]), a parameter pack, a record holding __half2, a __managed__
 * variable.
 */
#include "gpu_check.h"

#include "real_code.cubind.h"

enum { N = 3000, W = 37, H = 5, D = 3 };

/* The bits of a half equal to `v`, for values a half holds exactly (small integers here). */
static cubind_half to_half(float v) {
  cubind_half h;
  unsigned sign = v < 0 ? 0x8000u : 0u, exponent = 15, mantissa;
  float m = v < 0 ? -v : v;
  h.bits = (unsigned short)sign;
  if (m == 0.0f) return h;
  while (m >= 2.0f) { m /= 2.0f; exponent++; }
  while (m < 1.0f) { m *= 2.0f; exponent--; }
  mantissa = (unsigned)((m - 1.0f) * 1024.0f);
  h.bits = (unsigned short)(sign | exponent << 10 | mantissa);
  return h;
}

static float from_half(cubind_half h) {
  int exponent = (h.bits >> 10) & 31;
  float m = (float)(h.bits & 1023) / 1024.0f, v;
  if (exponent == 0) v = m * ldexpf(1.0f, -14);
  else v = (1.0f + m) * ldexpf(1.0f, exponent - 15);
  return (h.bits & 0x8000) ? -v : v;
}

/* The value of FP8 e4m3 bits (no NaN among those the test makes): 1 sign, 4 exponent (bias
   7), 3 mantissa bits. */
static float from_fp8_e4m3(cubind_fp8 f) {
  int exponent = (f.bits >> 3) & 15;
  float m = (float)(f.bits & 7) / 8.0f, v;
  if (exponent == 0) v = m * ldexpf(1.0f, -6);
  else v = (1.0f + m) * ldexpf(1.0f, exponent - 7);
  return (f.bits & 0x80) ? -v : v;
}

/* Random e4m3 bits that are not NaN (exponent 15 with mantissa 7). */
static cubind_fp8 random_fp8_e4m3(void) {
  cubind_fp8 f;
  do
    f.bits = (unsigned char)(gpu_rand_u32() & 0xff);
  while ((f.bits & 0x7f) == 0x7f);
  return f;
}

static size_t check_floats(const char *what, const float *got, const float *want, size_t n) {
  size_t bad = 0, i;
  for (i = 0; i < n; i++)
    if (!(got[i] == want[i])) {
      if (bad < 5) fprintf(stderr, "%s[%zu]: got %.9g, want %.9g\n", what, i, got[i], want[i]);
      bad++;
    }
  return bad;
}

int main(void) {
  static float x[N], y[N], want[N], out[N];
  static double dx[N], dwant[N];
  static int iota[N];
  static float pitched[D][H][64]; /* pitch: 64 floats (256 bytes) per row */
  static cubind_half2 pairs[N];
  cubind_config cfg = cubind_config_1d(N, 256);
  float a;
  size_t bad = 0;
  int i, offset, xi, yi, zi;

  gpu_require_gpu("gpu_real_code");
  gpu_seed("gpu_real_code");
  a = gpu_rand_float(-2.0f, 2.0f);

  /* a header's kernel */
  for (i = 0; i < N; i++) {
    x[i] = gpu_rand_float(-10.0f, 10.0f);
    y[i] = gpu_rand_float(-10.0f, 10.0f);
    /* nvcc contracts a * x + y into one fused multiply-add (-fmad=true, its default) */
    want[i] = fmaf(a, x[i], y[i]);
  }
  {
    float *dev_x, *dev_y;
    GPU_CHECK(cubind_malloc((void **)&dev_x, sizeof x));
    GPU_CHECK(cubind_malloc((void **)&dev_y, sizeof y));
    GPU_CHECK(cubind_to_device(dev_x, x, sizeof x));
    GPU_CHECK(cubind_to_device(dev_y, y, sizeof y));
    GPU_CHECK(header_saxpy_launch(&cfg, a, dev_x, dev_y, N));
    gpu_poison(out, sizeof out);
    GPU_CHECK(cubind_from_device(out, dev_y, sizeof out));
    bad += check_floats("header_saxpy", out, want, N);
    GPU_CHECK(cubind_free(dev_x));
    GPU_CHECK(cubind_free(dev_y));
  }

  /* a header template, both instantiations */
  for (i = 0; i < N; i++) {
    out[i] = x[i];
    want[i] = x[i] * 1.5f;
    dx[i] = (double)y[i];
    dwant[i] = dx[i] * -0.25;
  }
  GPU_CHECK(header_scale_float_call(&cfg, out, 1.5f, N));
  bad += check_floats("header_scale<float>", out, want, N);
  GPU_CHECK(header_scale_double_call(&cfg, dx, -0.25, N));
  for (i = 0; i < N; i++)
    if (!(dx[i] == dwant[i]) && bad++ < 5)
      fprintf(stderr, "header_scale<double>[%d]: got %.17g, want %.17g\n", i, dx[i], dwant[i]);

  /* a static kernel */
  for (i = 0; i < N; i++) {
    out[i] = x[i];
    want[i] = x[i] * x[i];
  }
  GPU_CHECK(static_square_call(&cfg, out, N));
  bad += check_floats("static_square", out, want, N);

  /* a parameter named cfg: the stub's configuration is then cubind_cfg */
  {
    float by = (float)(gpu_rand_u32() % 1000) / 8.0f - 60.0f;
    for (i = 0; i < N; i++) {
      out[i] = x[i];
      want[i] = x[i] + by;
    }
    GPU_CHECK(offset_by_cfg_call(&cfg, by, out, N));
    bad += check_floats("offset_by_cfg", out, want, N);
  }

  /* FP8 by value and in a host buffer: products of two e4m3 values are exact floats */
  {
    static cubind_fp8 in8[N];
    cubind_fp8 s8 = random_fp8_e4m3();
    for (i = 0; i < N; i++) {
      in8[i] = random_fp8_e4m3();
      want[i] = from_fp8_e4m3(in8[i]) * from_fp8_e4m3(s8);
    }
    gpu_poison(out, sizeof out);
    GPU_CHECK(scale_fp8_call(&cfg, s8, in8, out, N));
    bad += check_floats("scale_fp8", out, want, N);
  }

  /* an anonymous namespace's kernel */
  offset = (int)(gpu_rand_u32() % 1000);
  gpu_poison(iota, sizeof iota);
  GPU_CHECK(anonymous_iota_call(&cfg, iota, offset, N));
  for (i = 0; i < N; i++)
    if (iota[i] != i + offset && bad++ < 5)
      fprintf(stderr, "anonymous_iota[%d]: got %d, want %d\n", i, iota[i], i + offset);

  /* cudaPitchedPtr and cudaExtent by value */
  {
    struct cudaPitchedPtr p;
    struct cudaExtent e;
    cubind_config fill = cubind_config_1d(W, 64);
    float base = (float)(gpu_rand_u32() % 100);
    void *dev;
    GPU_CHECK(cubind_malloc(&dev, sizeof pitched));
    GPU_CHECK(cubind_memset_d8(dev, 0, sizeof pitched));
    p.ptr = dev;
    p.pitch = sizeof pitched[0][0];
    p.xsize = W * sizeof(float);
    p.ysize = H;
    e.width = W;
    e.height = H;
    e.depth = D;
    GPU_CHECK(fill_pitched_launch(&fill, p, e, base));
    gpu_poison(pitched, sizeof pitched);
    GPU_CHECK(cubind_from_device(pitched, dev, sizeof pitched));
    for (zi = 0; zi < D; zi++)
      for (yi = 0; yi < H; yi++)
        for (xi = 0; xi < 64; xi++) {
          float expected = xi < W ? base + (float)xi + 1000.0f * (float)yi +
                                        1000000.0f * (float)zi
                                  : 0.0f;
          if (!(pitched[zi][yi][xi] == expected) && bad++ < 5)
            fprintf(stderr, "fill_pitched[%d][%d][%d]: got %.9g, want %.9g\n", zi, yi, xi,
                    pitched[zi][yi][xi], expected);
        }
    GPU_CHECK(cubind_free(dev));
  }

  /* __half2 by value: small integers, exact in half precision */
  {
    cubind_half2 s, t;
    int sx = (int)(gpu_rand_u32() % 5) - 2, sy = (int)(gpu_rand_u32() % 5) - 2;
    int tx = (int)(gpu_rand_u32() % 9) - 4, ty = (int)(gpu_rand_u32() % 9) - 4;
    s.h[0] = to_half((float)sx);
    s.h[1] = to_half((float)sy);
    t.h[0] = to_half((float)tx);
    t.h[1] = to_half((float)ty);
    for (i = 0; i < N; i++) {
      pairs[i].h[0] = to_half((float)((int)(gpu_rand_u32() % 33) - 16));
      pairs[i].h[1] = to_half((float)((int)(gpu_rand_u32() % 33) - 16));
      want[i] = from_half(pairs[i].h[0]) * (float)sx + (float)tx;
      out[i] = from_half(pairs[i].h[1]) * (float)sy + (float)ty;
    }
    GPU_CHECK(fma_half2_call(&cfg, s, t, pairs, N));
    for (i = 0; i < N; i++)
      if ((from_half(pairs[i].h[0]) != want[i] || from_half(pairs[i].h[1]) != out[i]) &&
          bad++ < 5)
        fprintf(stderr, "fma_half2[%d]: got (%g, %g), want (%g, %g)\n", i,
                from_half(pairs[i].h[0]), from_half(pairs[i].h[1]), want[i], out[i]);
  }

  /* a tag type: times_tag<3> takes no argument for it */
  for (i = 0; i < N; i++)
    want[i] = 3.0f * x[i];
  gpu_poison(out, sizeof out);
  GPU_CHECK(times_tag_3_call(&cfg, x, out, N));
  bad += check_floats("times_tag<3>", out, want, N);

  /* arrays of arrays: float (*)[16] in C, rows copied in and out by _call */
  {
    static float ma[N / 16][16], mb[N / 16][16], mc[N / 16][16];
    int rows = N / 16, r, c;
    for (r = 0; r < rows; r++)
      for (c = 0; c < 16; c++) {
        ma[r][c] = gpu_rand_float(-1.0f, 1.0f);
        mb[r][c] = gpu_rand_float(-1.0f, 1.0f);
      }
    gpu_poison(mc, sizeof mc);
    GPU_CHECK(mat_add_rows_call(&cfg, (const float (*)[16])ma, (const float (*)[16])mb, mc,
                                rows));
    for (r = 0; r < rows; r++)
      for (c = 0; c < 16; c++)
        if (!(mc[r][c] == ma[r][c] + mb[r][c]) && bad++ < 5)
          fprintf(stderr, "mat_add_rows[%d][%d]: got %g, want %g\n", r, c, mc[r][c],
                  ma[r][c] + mb[r][c]);
  }

  /* a parameter pack launched from host code: sum_parts<float *, const float *> */
  {
    float *dev_out, *dev_x, *dev_y;
    for (i = 0; i < N; i++) {
      x[i] = gpu_rand_float(-1.0f, 1.0f);
      y[i] = gpu_rand_float(-1.0f, 1.0f);
      want[i] = 0.0f + x[i] + y[i];
    }
    GPU_CHECK(cubind_malloc((void **)&dev_out, sizeof out));
    GPU_CHECK(cubind_malloc((void **)&dev_x, sizeof x));
    GPU_CHECK(cubind_malloc((void **)&dev_y, sizeof y));
    GPU_CHECK(cubind_to_device(dev_x, x, sizeof x));
    GPU_CHECK(cubind_to_device(dev_y, y, sizeof y));
    GPU_CHECK(cubind_memset_d8(dev_out, 0xFF, sizeof out));
    GPU_CHECK(sum_parts_float_ptr_const_float_ptr_launch(&cfg, dev_out, N, dev_x, dev_y));
    GPU_CHECK(cubind_from_device(out, dev_out, sizeof out));
    bad += check_floats("sum_parts<float *, const float *>", out, want, N);
    GPU_CHECK(cubind_free(dev_out));
    GPU_CHECK(cubind_free(dev_x));
    GPU_CHECK(cubind_free(dev_y));
  }

  /* a record holding __half2 by value */
  {
    half2_affine p;
    int sx = (int)(gpu_rand_u32() % 5) - 2, sy = (int)(gpu_rand_u32() % 5) - 2;
    p.scale.h[0] = to_half((float)sx);
    p.scale.h[1] = to_half((float)sy);
    p.shift = (int)(gpu_rand_u32() % 9) - 4;
    for (i = 0; i < N; i++) {
      pairs[i].h[0] = to_half((float)((int)(gpu_rand_u32() % 33) - 16));
      pairs[i].h[1] = to_half((float)((int)(gpu_rand_u32() % 33) - 16));
      want[i] = from_half(pairs[i].h[0]) * (float)sx + (float)p.shift;
      out[i] = from_half(pairs[i].h[1]) * (float)sy + (float)p.shift;
    }
    GPU_CHECK(affine_h2_call(&cfg, p, pairs, N));
    for (i = 0; i < N; i++)
      if ((from_half(pairs[i].h[0]) != want[i] || from_half(pairs[i].h[1]) != out[i]) &&
          bad++ < 5)
        fprintf(stderr, "affine_h2[%d]: got (%g, %g), want (%g, %g)\n", i,
                from_half(pairs[i].h[0]), from_half(pairs[i].h[1]), want[i], out[i]);
  }

  /* a __managed__ variable: set, added to by a kernel, read back */
  {
    int start = (int)(gpu_rand_u32() % 1000), add = (int)(gpu_rand_u32() % 1000) + 1, total = -1;
    cubind_config one = cubind_config_1d(1, 1);
    GPU_CHECK(real_code_managed_total_to_device(&start, 1));
    GPU_CHECK(add_to_total_launch(&one, add));
    GPU_CHECK(cubind_synchronize());
    GPU_CHECK(real_code_managed_total_from_device(&total, 1));
    if (total != start + add && bad++ < 5)
      fprintf(stderr, "managed_total: got %d, want %d\n", total, start + add);
  }

  printf("gpu_real_code: header kernel, header template (float, double), static kernel, "
         "parameter named cfg, FP8, anonymous namespace, cudaPitchedPtr + cudaExtent, __half2, "
         "tag type, arrays of arrays, parameter pack, record with __half2, __managed__: "
         "%zu mismatches\n",
         bad);
  return gpu_finish("gpu_real_code", bad);
}
