/*
 * driver_api.h: the one list of CUDA driver entry points libcubind uses.
 *
 * X(name, version): required; the driver must hand it out or cubind_init() fails with
 *                   CUBIND_ERROR_DRIVER_TOO_OLD.
 * O(name, version): optional; NULL in the table when the driver is older.
 *
 * `version` is the CUDA version whose prototype we call, passed to cuGetProcAddress; it also
 * picks the function-pointer type PFN_<name>_v<version> from <cudaTypedefs.h>, so the type we
 * call through and the entry point the driver returns cannot drift apart.
 */
#ifndef CUBIND_DRIVER_API_H
#define CUBIND_DRIVER_API_H

#define CUBIND_DRIVER_API(X, O)                                                                    \
  /* initialisation, errors, devices */                                                            \
  X(cuInit, 2000)                                                                                  \
  X(cuGetErrorName, 6000)                                                                          \
  X(cuGetErrorString, 6000)                                                                        \
  X(cuDeviceGetCount, 2000)                                                                        \
  X(cuDeviceGet, 2000)                                                                             \
  X(cuDeviceGetAttribute, 2000)                                                                    \
  /* contexts */                                                                                   \
  X(cuCtxGetCurrent, 4000)                                                                         \
  X(cuCtxSetCurrent, 4000)                                                                         \
  X(cuCtxGetDevice, 2000)                                                                          \
  X(cuCtxSynchronize, 2000)                                                                        \
  X(cuDevicePrimaryCtxRetain, 7000)                                                                \
  /* modules: context-independent libraries (12.0) where present, else modules */                  \
  X(cuModuleLoadData, 2000)                                                                        \
  X(cuModuleUnload, 2000)                                                                          \
  X(cuModuleGetFunction, 2000)                                                                     \
  X(cuModuleGetGlobal, 3020)                                                                       \
  /* kernels */                                                                                    \
  X(cuFuncGetAttribute, 2020)                                                                      \
  X(cuFuncSetAttribute, 9000)                                                                      \
  O(cuFuncGetParamInfo, 12040)                                                                     \
  X(cuLaunchKernel, 4000)                                                                          \
  O(cuLaunchKernelEx, 11060)                                                                       \
  O(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050)                                             \
  O(cuOccupancyMaxPotentialBlockSize, 6050)                                                        \
  /* memory */                                                                                     \
  X(cuMemAlloc, 3020)                                                                              \
  X(cuMemFree, 3020)                                                                               \
  X(cuMemAllocHost, 3020)                                                                          \
  X(cuMemFreeHost, 2000)                                                                           \
  X(cuMemcpyHtoD, 3020)                                                                            \
  X(cuMemcpyDtoH, 3020)                                                                            \
  X(cuMemcpyHtoDAsync, 3020)                                                                       \
  X(cuMemcpyDtoHAsync, 3020)                                                                       \
  X(cuMemsetD8, 3020)                                                                              \
  O(cuMemAllocAsync, 11020)   /* reductions: per-call scratch on the call's stream */              \
  O(cuMemFreeAsync, 11020)                                                                         \
  O(cuMemPoolCreate, 11020)   /* reductions: cubind's own pool, its memory kept between calls */   \
  O(cuMemPoolSetAttribute, 11020)                                                                  \
  O(cuMemAllocFromPoolAsync, 11020)                                                                \
  O(cuMemsetD32Async, 3020)                                                                        \
  O(cuPointerGetAttributes, 7000) /* _call: page-locked or pageable host buffer */                 \
  O(cuMemHostRegister, 6050)      /* _call: large pageable buffers, page-locked for the call */    \
  O(cuMemHostUnregister, 4000)                                                                     \
  O(cuMemHostAlloc, 2020)         /* _call: the staging threads' page-locked slots */               \
  /* streams and events */                                                                         \
  X(cuStreamCreate, 2000)                                                                          \
  X(cuStreamDestroy, 4000)                                                                         \
  X(cuStreamSynchronize, 2000)                                                                     \
  O(cuStreamWaitEvent, 3020)      /* _call: staged copies out wait for the kernel */               \
  X(cuEventCreate, 2000)                                                                           \
  X(cuEventRecord, 2000)                                                                           \
  X(cuEventSynchronize, 2000)                                                                      \
  X(cuEventElapsedTime, 2000)                                                                      \
  X(cuEventDestroy, 4000)

#endif /* CUBIND_DRIVER_API_H */
