// Softmax and attention-style kernels (online softmax, causal masking, a tiny flash-attention
// forward) in the style of llm.c and FasterTransformer; C++ linkage, so the cubin names are
// mangled.
#include <cuda_fp16.h>
#include <float.h>
#include <cubind/annotations.h>

namespace attn {

__device__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/** Row softmax with the online (single pass) max/sum, one warp per row. */
__global__ void softmax_online(float *__restrict__ out, const float *__restrict__ inp, int N,
                               int C) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= N) return;
  const float *x = inp + (size_t)row * C;
  float m = -FLT_MAX, s = 0.f;
  for (int i = lane; i < C; i += 32) {
    float v = x[i], nm = fmaxf(m, v);
    s = s * __expf(m - nm) + __expf(v - nm);
    m = nm;
  }
  float gm = warp_max(m);
  s = warp_sum(s * __expf(m - gm));
  for (int i = lane; i < C; i += 32) out[(size_t)row * C + i] = __expf(x[i] - gm) / s;
}

/** Scaled, causally masked softmax over attention scores (B*NH*T rows of T). */
__global__ void scaled_causal_softmax(__half *__restrict__ att, const __half *__restrict__ preatt,
                                      int B, int NH, int T, float scale) {
  int row = blockIdx.x;
  int t = row % T;
  if (row >= B * NH * T) return;
  const __half *x = preatt + (size_t)row * T;
  float m = -FLT_MAX;
  for (int i = threadIdx.x; i <= t; i += blockDim.x) m = fmaxf(m, scale * __half2float(x[i]));
  m = warp_max(m);
  float s = 0.f;
  for (int i = threadIdx.x; i <= t; i += blockDim.x) s += __expf(scale * __half2float(x[i]) - m);
  s = warp_sum(s);
  for (int i = threadIdx.x; i < T; i += blockDim.x)
    att[(size_t)row * T + i] =
        __float2half(i <= t ? __expf(scale * __half2float(x[i]) - m) / s : 0.f);
}

/** A minimal flash-attention forward: one thread per query row, head size 64, tiles of K/V in
    shared memory. */
__global__ void flash_attention_forward(float *__restrict__ O, const float *__restrict__ Q,
                                        const float *__restrict__ K, const float *__restrict__ V,
                                        int N, int d, int Bc, float softmax_scale) {
  extern __shared__ float sram[];
  float *Kj = sram, *Vj = sram + Bc * d;
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[64], m = -FLT_MAX, l = 0.f;
  for (int x = 0; x < 64; x++) acc[x] = 0.f;
  for (int j0 = 0; j0 < N; j0 += Bc) {
    for (int i = threadIdx.x; i < Bc * d; i += blockDim.x) {
      Kj[i] = j0 * d + i < N * d ? K[j0 * d + i] : 0.f;
      Vj[i] = j0 * d + i < N * d ? V[j0 * d + i] : 0.f;
    }
    __syncthreads();
    if (q < N)
      for (int j = 0; j < Bc && j0 + j < N; j++) {
        float s = 0.f;
        for (int x = 0; x < d; x++) s += Q[q * d + x] * Kj[j * d + x];
        s *= softmax_scale;
        float nm = fmaxf(m, s), c = __expf(m - nm), p = __expf(s - nm);
        for (int x = 0; x < d; x++) acc[x] = acc[x] * c + p * Vj[j * d + x];
        l = l * c + p;
        m = nm;
      }
    __syncthreads();
  }
  if (q < N)
    for (int x = 0; x < d; x++) O[q * d + x] = acc[x] / l;
}

/** Rotary position embedding (RoPE), in place. */
__global__ void rope_inplace(CUBIND_INOUT_N(T * NH * HS) float *x, int T, int NH, int HS,
                             float theta) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int half_hs = HS / 2;
  if (idx >= T * NH * half_hs) return;
  int t = idx / (NH * half_hs), i = idx % half_hs;
  float freq = powf(theta, -2.0f * i / HS), a = t * freq;
  float *p = x + (size_t)(idx / half_hs) * HS;
  float x0 = p[i], x1 = p[i + half_hs];
  p[i] = x0 * cosf(a) - x1 * sinf(a);
  p[i + half_hs] = x0 * sinf(a) + x1 * cosf(a);
}

}  // namespace attn
