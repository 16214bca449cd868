// LayerNorm forward and backward as a training codebase writes them: kernels defined in a header
// that train.cu includes, one warp per row, floatX storage with fp32 statistics.
#pragma once
#include "common.cuh"

/** LayerNorm forward: out = (inp - mean) / std * weight + bias, one warp per row of C. */
__global__ void layernorm_forward_kernel(floatX *__restrict__ out, float *__restrict__ mean,
                                         float *__restrict__ rstd, const floatX *__restrict__ inp,
                                         const floatX *__restrict__ weight,
                                         const floatX *__restrict__ bias, int N, int C) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= N)
    return;
  const floatX *x = inp + (size_t)row * C;
  float sum = 0.0f;
  for (int i = lane; i < C; i += 32)
    sum += (float)x[i];
  float m = warp_sum(sum) / C;
  float var = 0.0f;
  for (int i = lane; i < C; i += 32) {
    float d = (float)x[i] - m;
    var += d * d;
  }
  float s = rsqrtf(warp_sum(var) / C + 1e-5f);
  for (int i = lane; i < C; i += 32)
    out[(size_t)row * C + i] = (floatX)(((float)x[i] - m) * s * (float)weight[i] + (float)bias[i]);
  if (lane == 0) {
    mean[row] = m;
    rstd[row] = s;
  }
}

/** Residual add fused with LayerNorm's input: residual = inp1 + inp2. */
template <typename T>
__global__ void residual_forward_kernel(T *out, const T *inp1, const T *inp2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = (T)((float)inp1[i] + (float)inp2[i]);
}

void layernorm_forward(floatX *out, float *mean, float *rstd, const floatX *inp,
                       const floatX *weight, const floatX *bias, int B, int T, int C,
                       cudaStream_t stream) {
  const int block = 256, N = B * T;
  layernorm_forward_kernel<<<ceil_div(N * 32, block), block, 0, stream>>>(out, mean, rstd, inp,
                                                                        weight, bias, N, C);
  CUDA_CHECK(cudaGetLastError());
}

void residual_forward(floatX *out, const floatX *inp1, const floatX *inp2, int n,
                      cudaStream_t stream) {
  residual_forward_kernel<<<ceil_div(n, 256), 256, 0, stream>>>(out, inp1, inp2, n);
  CUDA_CHECK(cudaGetLastError());
}
