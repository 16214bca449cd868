// Structs by value: one defined here (the generated header carries a C copy of it), one from a
// C header both sides include (the generated header includes it). The layout of `mixed`
// (c@0, d@8, i@16, v@32, 48 bytes, 16-byte aligned) puts `s` at 48 in the parameter buffer.
#include <cuda.h>
#include <cubind/annotations.h>
#include "structs_shared.h"

struct mixed {
  char c;
  double d;
  int i;
  float4 v;
};

/** out[k] = c + d * x[k] + i + (v.x + 2 v.y + 3 v.z + 4 v.w) for k in the span, else -1. */
extern "C" __global__ void mixed_eval(mixed m, struct span s, CUBIND_IN_N(n) const double *x,
                                      CUBIND_OUT_N(n) double *out, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  if (k < s.offset || k >= s.offset + s.length) {
    out[k] = -1.0;
    return;
  }
  /* explicit roundings: no fused multiply-add, so the CPU reference matches exactly */
  double v = __dadd_rn(__dadd_rn((double)m.v.x, __dmul_rn(2.0, (double)m.v.y)),
                       __dadd_rn(__dmul_rn(3.0, (double)m.v.z), __dmul_rn(4.0, (double)m.v.w)));
  double r = __dadd_rn((double)m.c, __dmul_rn(m.d, x[k]));
  out[k] = __dadd_rn(__dadd_rn(r, (double)m.i), v);
}

/* Layouts C's own rules would not give (__align__, packed, alignas on a field): the generated
   header's C copies carry the attributes that give the device's layout. */
struct __align__(16) aligned_pair {
  float a;
  int b;
};

struct __attribute__((packed)) packed_record {
  char c;
  double d;
  int i;
};

struct field_aligned {
  char c;
  alignas(8) int i;
};

/** out = {a + b, c + d + i, c + i, gap}, each sum rounded once per term. */
extern "C" __global__ void layouts_eval(aligned_pair p, char gap, packed_record q,
                                        field_aligned r, CUBIND_OUT_N(4) double *out) {
  if (blockIdx.x != 0 || threadIdx.x != 0)
    return;
  out[0] = __dadd_rn((double)p.a, (double)p.b);
  out[1] = __dadd_rn(__dadd_rn((double)q.c, q.d), (double)q.i);
  out[2] = __dadd_rn((double)r.c, (double)r.i);
  out[3] = (double)gap;
}

/** out = {n + a.x + a.y + a.z + a.w, b}: a 32-byte aligned vector after an int, whose offset
    nvcc picks by architecture (CUBIND_PARAM_OFFSET_ANY). */
extern "C" __global__ void wide_eval(int n, double4_32a a, double b,
                                     CUBIND_OUT_N(2) double *out) {
  if (blockIdx.x != 0 || threadIdx.x != 0)
    return;
  out[0] = (double)n + a.x + a.y + a.z + a.w; /* small integers: exact in any order */
  out[1] = b;
}

/** out[k] = word k of the tensor map (Hopper TMA's descriptor, cuda.h) as the kernel got it:
    aligned to 128 for the device, and in a C99 caller's copy only as its words are. */
extern "C" __global__ void tensor_map_words(const __grid_constant__ CUtensorMap map,
                                            CUBIND_OUT_N(16) unsigned long long *out) {
  if (blockIdx.x == 0 && threadIdx.x < 16)
    out[threadIdx.x] = reinterpret_cast<const unsigned long long *>(&map)[threadIdx.x];
}

/* Parameters past 4 KiB (CUDA 12.1 allows 32,764 bytes), which nvcc describes with another
   attribute (binary.c: KPARAM_INFO_V2): a 6,000-byte table after a char. */
struct big_table {
  float w[1500];
};

/** out[k] = t.w[k] * scale + tag for each k < n (n <= 1500). */
extern "C" __global__ void big_table_eval(char tag, big_table t, float scale,
                                          CUBIND_OUT_N(n) float *out, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n)
    out[k] = __fadd_rn(__fmul_rn(t.w[k], scale), (float)tag);
}
