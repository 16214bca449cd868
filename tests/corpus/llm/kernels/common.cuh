// Shared helpers of the training kernels, in the style of a plain-CUDA LLM training codebase:
// a header included by every kernel header, with device helpers, a floatX type chosen by macro
// and a CUDA_CHECK host helper.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#if defined(ENABLE_FP32)
typedef float floatX;
#else
typedef __nv_bfloat16 floatX;
#endif

#define CUDA_CHECK(call)                                                                        \
  do {                                                                                          \
    cudaError_t error_ = (call);                                                                \
    if (error_ != cudaSuccess) {                                                                \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(error_), __FILE__, __LINE__); \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

static __device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

static inline int ceil_div(int a, int b) { return (a + b - 1) / b; }
