/*
 * structs: a kernel taking a struct defined in the .cu (char, double, int, float4: the
 * generated header's C copy, layout checked at compile time) and a struct from a shared C
 * header, by value, plus pointers; and records whose C copies need attributes (__align__,
 * packed, alignas on a field), a 32-byte aligned vector and 6,000 bytes of parameters;
 * checked against the CPU.
 */
#include "gpu_check.h"

#include "structs.cubind.h"

enum { N = 1000 };

int main(void) {
  static double x[N], out[N], want[N];
  mixed m;
  struct span s;
  cubind_config cfg = cubind_config_1d(N, 128);
  size_t bad = 0;
  int k;

  gpu_require_gpu("gpu_structs");
  gpu_seed("gpu_structs");
  memset(&m, 0, sizeof m);
  m.c = (char)(gpu_rand_u32() % 100);
  m.d = (double)gpu_rand_float(-4.0f, 4.0f);
  m.i = (int)(gpu_rand_u32() % 2001) - 1000;
  m.v.x = gpu_rand_float(-1.0f, 1.0f);
  m.v.y = gpu_rand_float(-1.0f, 1.0f);
  m.v.z = gpu_rand_float(-1.0f, 1.0f);
  m.v.w = gpu_rand_float(-1.0f, 1.0f);
  s.offset = 17 + (int)(gpu_rand_u32() % 100);
  s.length = 600 + (int)(gpu_rand_u32() % 200);
  for (k = 0; k < N; k++) {
    x[k] = (double)gpu_rand_float(-100.0f, 100.0f);
    if (k < s.offset || k >= s.offset + s.length) {
      want[k] = -1.0;
    } else {
      volatile double v = ((double)m.v.x + 2.0 * (double)m.v.y) +
                          (3.0 * (double)m.v.z + 4.0 * (double)m.v.w);
      volatile double r = (double)m.c + m.d * x[k];
      want[k] = (r + (double)m.i) + v;
    }
  }
  gpu_poison(out, sizeof out);
  GPU_CHECK(mixed_eval_call(&cfg, m, s, x, out, N));
  for (k = 0; k < N; k++)
    if (!(out[k] == want[k])) {
      if (bad < 5) fprintf(stderr, "out[%d]: got %.17g, want %.17g\n", k, out[k], want[k]);
      bad++;
    }
  {
    /* records whose C copies need attributes for the device's layout, and a char between */
    aligned_pair p;
    packed_record q;
    field_aligned r;
    char gap = (char)(gpu_rand_u32() % 100);
    double got[4], expect[4];
    cubind_config one = cubind_config_1d(1, 1);
    memset(&p, 0, sizeof p);
    memset(&q, 0, sizeof q);
    memset(&r, 0, sizeof r);
    p.a = gpu_rand_float(-50.0f, 50.0f);
    p.b = (int)(gpu_rand_u32() % 2001) - 1000;
    q.c = (char)(gpu_rand_u32() % 100);
    q.d = (double)gpu_rand_float(-8.0f, 8.0f);
    q.i = (int)(gpu_rand_u32() % 2001) - 1000;
    r.c = (char)(gpu_rand_u32() % 100);
    r.i = (int)(gpu_rand_u32() % 2001) - 1000;
    {
      volatile double sum = (double)q.c + q.d;
      expect[0] = (double)p.a + (double)p.b;
      expect[1] = sum + (double)q.i;
      expect[2] = (double)r.c + (double)r.i;
      expect[3] = (double)gap;
    }
    gpu_poison(got, sizeof got);
    GPU_CHECK(layouts_eval_call(&one, p, gap, q, r, got));
    for (k = 0; k < 4; k++)
      if (!(got[k] == expect[k])) {
        fprintf(stderr, "layouts_eval out[%d]: got %.17g, want %.17g\n", k, got[k], expect[k]);
        bad++;
      }
    printf("gpu_structs: sizeof aligned_pair %zu, packed_record %zu, field_aligned %zu\n",
           sizeof p, sizeof q, sizeof r);
  }
  {
    /* a 32-byte aligned vector by value after an int: the driver places it, the ABI check
       takes its size only */
    double4_32a a;
    int n = (int)(gpu_rand_u32() % 1000);
    double b = (double)(gpu_rand_u32() % 1000) + 0.5, got[2], expect[2];
    cubind_config one = cubind_config_1d(1, 1);
    a.x = (double)(gpu_rand_u32() % 1000);
    a.y = (double)(gpu_rand_u32() % 1000);
    a.z = (double)(gpu_rand_u32() % 1000);
    a.w = (double)(gpu_rand_u32() % 1000);
    expect[0] = (double)n + a.x + a.y + a.z + a.w;
    expect[1] = b;
    gpu_poison(got, sizeof got);
    GPU_CHECK(wide_eval_call(&one, n, a, b, got));
    for (k = 0; k < 2; k++)
      if (!(got[k] == expect[k])) {
        fprintf(stderr, "wide_eval out[%d]: got %.17g, want %.17g\n", k, got[k], expect[k]);
        bad++;
      }
  }
  {
    /* a CUtensorMap by value from C99, where cuda.h cannot align it to 128: its bytes reach
       the kernel as they are (the generated alignment check is C11 and C++11 only) */
    CUtensorMap map;
    unsigned long long got[16];
    cubind_config warp = cubind_config_1d(32, 32);
    for (k = 0; k < 16; k++)
      map.opaque[k] = (unsigned long long)gpu_rand_u32() << 32 | gpu_rand_u32();
    gpu_poison(got, sizeof got);
    GPU_CHECK(tensor_map_words_call(&warp, map, got));
    for (k = 0; k < 16; k++)
      if (got[k] != map.opaque[k]) {
        fprintf(stderr, "tensor_map_words out[%d]: got %llx, want %llx\n", k, got[k],
                (unsigned long long)map.opaque[k]);
        bad++;
      }
  }
  {
    /* 6,000 bytes of parameters in one struct, after a char */
    static big_table t;
    static float got[1500], expect[1500];
    char tag = (char)(gpu_rand_u32() % 100);
    float scale = gpu_rand_float(-2.0f, 2.0f);
    cubind_config all = cubind_config_1d(1500, 128);
    for (k = 0; k < 1500; k++) {
      volatile float product;
      t.w[k] = gpu_rand_float(-100.0f, 100.0f);
      product = t.w[k] * scale;
      expect[k] = product + (float)tag;
    }
    gpu_poison(got, sizeof got);
    GPU_CHECK(big_table_eval_call(&all, tag, t, scale, got, 1500));
    for (k = 0; k < 1500; k++)
      if (!(got[k] == expect[k])) {
        if (bad < 5)
          fprintf(stderr, "big_table_eval out[%d]: got %.9g, want %.9g\n", k, got[k], expect[k]);
        bad++;
      }
  }
  printf("gpu_structs: sizeof(mixed) %zu, span [%d, %d), %zu mismatches\n", sizeof(mixed),
         s.offset, s.offset + s.length, bad);
  return gpu_finish("gpu_structs", bad);
}
