/*
 * launch_runtime.cu: the CUDA runtime's <<<>>> variant of the launch benchmark (see
 * launch_overhead.c). Compiled by nvcc into the same binary; the runtime API works in the
 * device's primary context, the same one cubind uses, and launches onto the same stream.
 *
 * The kernels are copies of bench/kernels/bench_kernels.cu's empty kernels, registered with the
 * runtime the usual way (nvcc's fatbin registration), so this is what a CUDA C++ user pays.
 */
#include <cuda_runtime.h>
#include "launch_args.h"

__global__ void rt_empty0(void) {}

__global__ void rt_empty4(float *a, const int *b, int n, float s) {
  (void)a, (void)b, (void)n, (void)s;
}

__global__ void rt_empty16(float *p0, const float *p1, int *p2, const double *p3, int i0, int i1,
                           unsigned u0, long long l0, float f0, float f1, double d0, float4 v0,
                           char c0, short s0, size_t z0, unsigned char *p4) {
  (void)p0, (void)p1, (void)p2, (void)p3, (void)i0, (void)i1, (void)u0, (void)l0;
  (void)f0, (void)f1, (void)d0, (void)v0, (void)c0, (void)s0, (void)z0, (void)p4;
}

/* The loop sits here, as it sits in the C file for the other variants: one call per batch. */
extern "C" int rt_launch_batch(int num_params, CUstream stream, int count, const launch_args *a,
                               const char **error_name) {
  cudaStream_t s = (cudaStream_t)stream;
  switch (num_params) {
  case 0:
    for (int i = 0; i < count; i++) rt_empty0<<<1, 32, 0, s>>>();
    break;
  case 4:
    for (int i = 0; i < count; i++) rt_empty4<<<1, 32, 0, s>>>(a->p0, (const int *)a->p2, a->i0, a->f0);
    break;
  default:
    for (int i = 0; i < count; i++)
      rt_empty16<<<1, 32, 0, s>>>(a->p0, a->p1, a->p2, a->p3, a->i0, a->i1, a->u0, a->l0, a->f0,
                                  a->f1, a->d0, a->v0, a->c0, a->s0, a->z0, a->p4);
    break;
  }
  cudaError_t e = cudaGetLastError();
  *error_name = cudaGetErrorName(e);
  return (int)e;
}

extern "C" int rt_launch_sync(int num_params, CUstream stream, const launch_args *a,
                              const char **error_name) {
  cudaError_t e = (cudaError_t)rt_launch_batch(num_params, stream, 1, a, error_name);
  if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)stream);
  *error_name = cudaGetErrorName(e);
  return (int)e;
}
