/*
 * memory.c: device and page-locked host memory, copies, memset, synchronisation and streams.
 * Each call makes sure of the driver and the thread's context first (cubind__enter).
 */
#include <stdint.h>

#include "context.h"
#include "driver.h"
#include "error.h"
#include "result.h"

/* Device pointers travel as void * in the public API and as CUdeviceptr to the driver. */
#define DEVPTR(p) ((CUdeviceptr)(uintptr_t)(p))

cubind_status cubind_malloc(void **dev_ptr, size_t bytes) {
  CUdeviceptr p = 0;
  CUresult r;
  cubind_status status;
  if (!dev_ptr) return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "cubind_malloc: dev_ptr is NULL");
  *dev_ptr = NULL;
  if (bytes == 0) return CUBIND_SUCCESS;
  status = cubind__enter("cubind_malloc", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuMemAlloc(&p, bytes);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_OUT_OF_MEMORY,
                             "cubind_malloc: cuMemAlloc of %zu bytes failed", bytes);
  *dev_ptr = (void *)(uintptr_t)p;
  return CUBIND_SUCCESS;
}

cubind_status cubind_free(void *dev_ptr) {
  CUresult r;
  cubind_status status;
  if (!dev_ptr) return CUBIND_SUCCESS;
  status = cubind__enter("cubind_free", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuMemFree(DEVPTR(dev_ptr));
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_CUDA, "cubind_free: cuMemFree(%p) failed", dev_ptr);
  return CUBIND_SUCCESS;
}

cubind_status cubind_malloc_host(void **host_ptr, size_t bytes) {
  CUresult r;
  cubind_status status;
  if (!host_ptr)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "cubind_malloc_host: host_ptr is NULL");
  *host_ptr = NULL;
  if (bytes == 0) return CUBIND_SUCCESS;
  status = cubind__enter("cubind_malloc_host", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuMemAllocHost(host_ptr, bytes);
  if (r != CUDA_SUCCESS) {
    *host_ptr = NULL;
    return cubind__fail_cuda(r, CUBIND_ERROR_OUT_OF_MEMORY,
                             "cubind_malloc_host: cuMemAllocHost of %zu bytes failed", bytes);
  }
  return CUBIND_SUCCESS;
}

cubind_status cubind_free_host(void *host_ptr) {
  CUresult r;
  cubind_status status;
  if (!host_ptr) return CUBIND_SUCCESS;
  status = cubind__enter("cubind_free_host", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuMemFreeHost(host_ptr);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_CUDA, "cubind_free_host: cuMemFreeHost(%p) failed",
                             host_ptr);
  return CUBIND_SUCCESS;
}

cubind_status cubind_host_register(void *host, size_t bytes) {
  CUresult r;
  cubind_status status;
  if (!host && bytes)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "cubind_host_register: host is NULL");
  if (bytes == 0) return CUBIND_SUCCESS;
  status = cubind__enter("cubind_host_register", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  if (!cubind__drv.cuMemHostRegister || !cubind__drv.cuMemHostUnregister)
    return cubind__fail(CUBIND_ERROR_DRIVER_TOO_OLD,
                        "cubind_host_register: the driver has no cuMemHostRegister");
  /* portable: page-locked for every context, as cubind_malloc_host's memory is */
  r = cubind__drv.cuMemHostRegister(host, bytes, CU_MEMHOSTREGISTER_PORTABLE);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_CUDA,
                             "cubind_host_register: cuMemHostRegister(%p, %zu bytes) failed",
                             host, bytes);
  return CUBIND_SUCCESS;
}

cubind_status cubind_host_unregister(void *host) {
  CUresult r;
  cubind_status status;
  if (!host) return CUBIND_SUCCESS;
  status = cubind__enter("cubind_host_unregister", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  if (!cubind__drv.cuMemHostUnregister)
    return cubind__fail(CUBIND_ERROR_DRIVER_TOO_OLD,
                        "cubind_host_unregister: the driver has no cuMemHostUnregister");
  r = cubind__drv.cuMemHostUnregister(host);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_CUDA,
                             "cubind_host_unregister: cuMemHostUnregister(%p) failed", host);
  return CUBIND_SUCCESS;
}

/* The shared shape of the four copy functions: check pointers, enter, report failures. */
static cubind_status copy_prologue(const char *what, const void *dst, const void *src,
                                   size_t bytes) {
  if (!dst || !src)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "%s: %s pointer is NULL (%zu bytes)", what,
                        !dst ? "the destination" : "the source", bytes);
  return cubind__enter(what, NULL, NULL);
}

cubind_status cubind_to_device(void *dev_dst, const void *host_src, size_t bytes) {
  CUresult r;
  cubind_status status;
  if (bytes == 0) return CUBIND_SUCCESS;
  status = copy_prologue("cubind_to_device", dev_dst, host_src, bytes);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuMemcpyHtoD(DEVPTR(dev_dst), host_src, bytes);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_MEMCPY,
                             "cubind_to_device: cuMemcpyHtoD of %zu bytes to %p failed", bytes,
                             dev_dst);
  return CUBIND_SUCCESS;
}

cubind_status cubind_from_device(void *host_dst, const void *dev_src, size_t bytes) {
  CUresult r;
  cubind_status status;
  if (bytes == 0) return CUBIND_SUCCESS;
  status = copy_prologue("cubind_from_device", host_dst, dev_src, bytes);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuMemcpyDtoH(host_dst, DEVPTR(dev_src), bytes);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_MEMCPY,
                             "cubind_from_device: cuMemcpyDtoH of %zu bytes from %p failed", bytes,
                             dev_src);
  return CUBIND_SUCCESS;
}

cubind_status cubind_to_device_async(void *dev_dst, const void *host_src, size_t bytes,
                                     CUstream stream) {
  CUresult r;
  cubind_status status;
  if (bytes == 0) return CUBIND_SUCCESS;
  status = copy_prologue("cubind_to_device_async", dev_dst, host_src, bytes);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuMemcpyHtoDAsync(DEVPTR(dev_dst), host_src, bytes, stream);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_MEMCPY,
                             "cubind_to_device_async: cuMemcpyHtoDAsync of %zu bytes to %p on "
                             "stream 0x%llx failed",
                             bytes, dev_dst, CUBIND_STREAM_ARG(stream));
  return CUBIND_SUCCESS;
}

cubind_status cubind_from_device_async(void *host_dst, const void *dev_src, size_t bytes,
                                       CUstream stream) {
  CUresult r;
  cubind_status status;
  if (bytes == 0) return CUBIND_SUCCESS;
  status = copy_prologue("cubind_from_device_async", host_dst, dev_src, bytes);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuMemcpyDtoHAsync(host_dst, DEVPTR(dev_src), bytes, stream);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_MEMCPY,
                             "cubind_from_device_async: cuMemcpyDtoHAsync of %zu bytes from %p on "
                             "stream 0x%llx failed",
                             bytes, dev_src, CUBIND_STREAM_ARG(stream));
  return CUBIND_SUCCESS;
}

cubind_status cubind_memset_d8(void *dev_dst, unsigned char value, size_t bytes) {
  CUresult r;
  cubind_status status;
  if (bytes == 0) return CUBIND_SUCCESS;
  if (!dev_dst)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "cubind_memset_d8: dev_dst is NULL");
  status = cubind__enter("cubind_memset_d8", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuMemsetD8(DEVPTR(dev_dst), value, bytes);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_CUDA,
                             "cubind_memset_d8: cuMemsetD8 of %zu bytes at %p failed", bytes,
                             dev_dst);
  return CUBIND_SUCCESS;
}

cubind_status cubind_synchronize(void) {
  CUresult r;
  cubind_status status = cubind__enter("cubind_synchronize", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuCtxSynchronize();
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_CUDA, "cubind_synchronize: cuCtxSynchronize failed");
  return CUBIND_SUCCESS;
}

cubind_status cubind_stream_create(CUstream *stream) {
  CUresult r;
  cubind_status status;
  if (!stream)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "cubind_stream_create: stream is NULL");
  *stream = NULL;
  status = cubind__enter("cubind_stream_create", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuStreamCreate(stream, CU_STREAM_NON_BLOCKING);
  if (r != CUDA_SUCCESS) {
    *stream = NULL;
    return cubind__fail_cuda(r, CUBIND_ERROR_STREAM, "cubind_stream_create: cuStreamCreate failed");
  }
  return CUBIND_SUCCESS;
}

cubind_status cubind_stream_destroy(CUstream stream) {
  CUresult r;
  cubind_status status;
  if (!stream) return CUBIND_SUCCESS;
  status = cubind__enter("cubind_stream_destroy", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuStreamDestroy(stream);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_STREAM,
                             "cubind_stream_destroy: cuStreamDestroy(0x%llx) failed",
                             CUBIND_STREAM_ARG(stream));
  return CUBIND_SUCCESS;
}

cubind_status cubind_stream_synchronize(CUstream stream) {
  CUresult r;
  cubind_status status = cubind__enter("cubind_stream_synchronize", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuStreamSynchronize(stream);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_STREAM,
                             "cubind_stream_synchronize: cuStreamSynchronize(0x%llx) failed",
                             CUBIND_STREAM_ARG(stream));
  return CUBIND_SUCCESS;
}
