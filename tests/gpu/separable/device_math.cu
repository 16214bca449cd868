// Device code that the kernels of kernels.cu call from this other .cu file: it needs relocatable
// device code (add_gpu_kernels(... SEPARABLE): nvcc -rdc=true and one device link). Its own
// kernels reset and read a __device__ variable that kernels.cu's kernel updates: one image, so
// one variable.
#include <cubind/annotations.h>

__device__ unsigned int poly_calls;

/* 3x^2 - 2x + 0.5, the function kernels.cu applies. */
__device__ float poly(float x) { return (3.0f * x - 2.0f) * x + 0.5f; }

/** Sets the call counter to zero. */
extern "C" __global__ void reset_calls(void) { poly_calls = 0; }

/** Copies the call counter to *count. */
extern "C" __global__ void read_calls(CUBIND_OUT_N(1) unsigned int *count) { *count = poly_calls; }
