/*
 * fake_old_cuda.c: a stand-in for a CUDA driver older than 11.3 (test_driver.c): it exports
 * cuInit and cuDriverGetVersion (11.2) but no cuGetProcAddress.
 */
#include <cuda.h>

#define EXPORT __attribute__((visibility("default")))

#undef cuDriverGetVersion
EXPORT CUresult cuInit(unsigned flags) { return flags ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS; }

EXPORT CUresult cuDriverGetVersion(int *version) {
  *version = 11020;
  return CUDA_SUCCESS;
}
