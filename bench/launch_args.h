/*
 * launch_args.h: the argument values of the empty kernels, shared by the C benchmark and the
 * CUDA-runtime half (launch_runtime.cu), so that every launch variant passes the same values.
 */
#ifndef CUBIND_BENCH_LAUNCH_ARGS_H
#define CUBIND_BENCH_LAUNCH_ARGS_H

#include <stddef.h>
#include <cuda.h>
#include <vector_types.h> /* float4: a plain C struct, 16-byte aligned */

typedef struct launch_args {
  float *p0;
  const float *p1;
  int *p2;
  const double *p3;
  int i0, i1;
  unsigned u0;
  long long l0;
  float f0, f1;
  double d0;
  float4 v0;
  char c0;
  short s0;
  size_t z0;
  unsigned char *p4;
} launch_args;

#ifdef __cplusplus
extern "C" {
#endif

/*
 * rt_launch_batch: `count` launches of the runtime's copy of empty<num_params> (0, 4 or 16) with
 * <<<1, 32, 0, stream>>> and the values in *a. Returns the cudaError_t of cudaGetLastError()
 * after the loop (0 on success); *error_name gets its name.
 */
int rt_launch_batch(int num_params, CUstream stream, int count, const launch_args *a,
                    const char **error_name);

/* rt_launch_sync: one launch of empty<num_params> then cudaStreamSynchronize (latency test). */
int rt_launch_sync(int num_params, CUstream stream, const launch_args *a,
                   const char **error_name);

#ifdef __cplusplus
}
#endif

#endif /* CUBIND_BENCH_LAUNCH_ARGS_H */
