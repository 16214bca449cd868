/*
 * device_ops_cub.cu: cub::DeviceReduce::Sum for bench/device_ops.c, the reference its reductions
 * are compared with. Compiled by nvcc (CMake's CUDA language) into the same binary, with the
 * CUDA runtime linked statically. The runtime API works in the device's primary context, the one
 * cubind made current on the calling thread (device_ops.c checks that the runtime leaves it
 * current), so the two share device pointers; the work goes onto the given stream (0: the legacy
 * default stream, cubind's stream for cfg NULL).
 */
#include <cstddef>

#include <cub/device/device_reduce.cuh>
#include <cuda.h>
#include <cuda_runtime.h>

/*
 * Starts the runtime (cudaFree(0): it picks up the thread's current context) and returns the
 * runtime's device ordinal in *device; 0 or a cudaError_t, with its name in *error_name.
 */
extern "C" int cub_sum_init(int *device, const char **error_name) {
  cudaError_t e = cudaFree(0);
  if (e == cudaSuccess) e = cudaGetDevice(device);
  *error_name = cudaGetErrorName(e);
  return (int)e;
}

/* The temporary storage cub::DeviceReduce::Sum needs for n floats, into *bytes. */
extern "C" int cub_sum_temp_bytes(size_t n, size_t *bytes, const char **error_name) {
  *bytes = 0;
  cudaError_t e = cub::DeviceReduce::Sum(nullptr, *bytes, (const float *)nullptr,
                                         (float *)nullptr, n);
  *error_name = cudaGetErrorName(e);
  return (int)e;
}

/*
 * *result (device memory) = the sum of in[0..n), with `temp` (device memory of temp_bytes, from
 * cub_sum_temp_bytes) on `stream`; asynchronous, as the CUBIND_REDUCTION _launch it is compared
 * with.
 */
extern "C" int cub_sum(void *temp, size_t temp_bytes, const float *in, float *result, size_t n,
                       CUstream stream, const char **error_name) {
  size_t bytes = temp_bytes;
  cudaError_t e = cub::DeviceReduce::Sum(temp, bytes, in, result, n, (cudaStream_t)stream);
  if (e == cudaSuccess) e = cudaGetLastError();
  *error_name = cudaGetErrorName(e);
  return (int)e;
}
