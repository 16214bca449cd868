// Fused LayerNorm / RMSNorm in the style of Apex / Megatron / llm.c: one warp or block per row,
// half and bf16 storage with float accumulation, __restrict__ everywhere.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cubind/annotations.h>

#define WARP_SIZE 32

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

/** LayerNorm forward, fp32: one warp per row. mean and rstd are saved for the backward. */
extern "C" __global__ void layernorm_forward_f32(float *__restrict__ out, float *__restrict__ mean,
                                                 float *__restrict__ rstd,
                                                 const float *__restrict__ inp,
                                                 const float *__restrict__ weight,
                                                 const float *__restrict__ bias, int N, int C) {
  int lane = threadIdx.x % WARP_SIZE;
  int row = blockIdx.x * (blockDim.x / WARP_SIZE) + threadIdx.x / WARP_SIZE;
  if (row >= N) return;
  const float *x = inp + (size_t)row * C;
  float sum = 0.f;
  for (int i = lane; i < C; i += WARP_SIZE) sum += x[i];
  float m = warp_sum(sum) / C;
  float var = 0.f;
  for (int i = lane; i < C; i += WARP_SIZE) { float d = x[i] - m; var += d * d; }
  float s = rsqrtf(warp_sum(var) / C + 1e-5f);
  for (int i = lane; i < C; i += WARP_SIZE)
    out[(size_t)row * C + i] = (x[i] - m) * s * weight[i] + bias[i];
  if (lane == 0) { mean[row] = m; rstd[row] = s; }
}

/** LayerNorm forward, half in and out, float math. */
extern "C" __global__ void layernorm_forward_f16(__half *__restrict__ out,
                                                 const __half *__restrict__ inp,
                                                 const __half *__restrict__ gamma,
                                                 const __half *__restrict__ beta, int N, int C,
                                                 float eps) {
  int row = blockIdx.x;
  if (row >= N) return;
  __shared__ float shared[2];
  float sum = 0.f, sq = 0.f;
  for (int i = threadIdx.x; i < C; i += blockDim.x) {
    float v = __half2float(inp[(size_t)row * C + i]);
    sum += v; sq += v * v;
  }
  sum = warp_sum(sum); sq = warp_sum(sq);
  if (threadIdx.x == 0) { shared[0] = sum; shared[1] = sq; }
  __syncthreads();
  float m = shared[0] / C, s = rsqrtf(shared[1] / C - m * m + eps);
  for (int i = threadIdx.x; i < C; i += blockDim.x) {
    float v = (__half2float(inp[(size_t)row * C + i]) - m) * s;
    out[(size_t)row * C + i] = __float2half(v * __half2float(gamma[i]) + __half2float(beta[i]));
  }
}

/** RMSNorm, bf16 (LLaMA style), host buffers through _call. */
extern "C" __global__ void rmsnorm_bf16(CUBIND_OUT_N(rows * cols) __nv_bfloat16 *__restrict__ out,
                                        CUBIND_IN_N(rows * cols) const __nv_bfloat16 *__restrict__ x,
                                        CUBIND_IN_N(cols) const __nv_bfloat16 *__restrict__ w,
                                        int rows, int cols, float eps) {
  int row = blockIdx.x;
  if (row >= rows) return;
  float sq = 0.f;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    float v = __bfloat162float(x[(size_t)row * cols + i]);
    sq += v * v;
  }
  sq = warp_sum(sq);
  float s = rsqrtf(sq / cols + eps);
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    out[(size_t)row * cols + i] =
        __float2bfloat16(__bfloat162float(x[(size_t)row * cols + i]) * s * __bfloat162float(w[i]));
}

/** Residual add + LayerNorm, half2 vectorised (pairs of elements). */
extern "C" __global__ void fused_residual_layernorm(__half2 *__restrict__ out,
                                                    __half2 *__restrict__ residual,
                                                    const __half2 *__restrict__ inp,
                                                    const __half2 *__restrict__ gamma, int N,
                                                    int C2) {
  int row = blockIdx.x;
  if (row >= N) return;
  float sum = 0.f;
  for (int i = threadIdx.x; i < C2; i += blockDim.x) {
    __half2 r = __hadd2(residual[(size_t)row * C2 + i], inp[(size_t)row * C2 + i]);
    residual[(size_t)row * C2 + i] = r;
    float2 f = __half22float2(r);
    sum += f.x + f.y;
  }
  float m = warp_sum(sum) / (2 * C2);
  for (int i = threadIdx.x; i < C2; i += blockDim.x) {
    float2 f = __half22float2(residual[(size_t)row * C2 + i]);
    float2 g = __half22float2(gamma[i]);
    out[(size_t)row * C2 + i] = __floats2half2_rn((f.x - m) * g.x, (f.y - m) * g.y);
  }
}
