// AdamW as a training codebase writes it: a templated kernel in a header, launched from a host
// function of the same header, with a device helper of internal linkage.
#pragma once
#include "common.cuh"

static __device__ inline float lerp(float start, float end, float weight) {
  return fma(weight, end, fma(-weight, start, start));
}

template <typename Tp, typename Tg>
__global__ void adamw_kernel3(Tp *params_memory, float *master_params_memory, Tg *grads_memory,
                              float *m_memory, float *v_memory, size_t num_parameters,
                              float learning_rate, float beta1, float beta2,
                              float beta1_correction, float beta2_correction, float eps,
                              float weight_decay, float grad_scale, unsigned int seed) {
  size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (idx >= num_parameters)
    return;
  float grad = grad_scale * (float)grads_memory[idx];
  float m = lerp(grad, m_memory[idx], beta1);
  float v = lerp(grad * grad, v_memory[idx], beta2);
  m_memory[idx] = m;
  v_memory[idx] = v;
  m /= beta1_correction;
  v /= beta2_correction;
  float old = master_params_memory ? master_params_memory[idx] : (float)params_memory[idx];
  float param = old - (learning_rate * (m / (sqrtf(v) + eps) + weight_decay * old));
  params_memory[idx] = (Tp)param;
  if (master_params_memory)
    master_params_memory[idx] = param;
  (void)seed;
}

template <typename Tp, typename Tg>
void adamw_update(Tp *params, float *master, Tg *grads, float *m, float *v, size_t n, float lr,
                  float b1, float b2, int t, float eps, float wd, float scale,
                  unsigned int seed, cudaStream_t stream) {
  float c1 = 1.0f - powf(b1, t), c2 = 1.0f - powf(b2, t);
  adamw_kernel3<<<(unsigned)((n + 511) / 512), 512, 0, stream>>>(
      params, master, grads, m, v, n, lr, b1, b2, c1, c2, eps, wd, scale, seed);
  CUDA_CHECK(cudaGetLastError());
}
