/*
 * context.c: the calling thread's CUDA context. A thread that already has a current context
 * (made by the application, or by the CUDA runtime) keeps it; otherwise the selected device's
 * primary context (the one the CUDA runtime also uses) is retained once per process and made
 * current. Primary contexts are never released: like the CUDA runtime, cubind leaves teardown to
 * process exit instead of racing other threads (and never aborts there).
 */
#include <pthread.h>
#include <stdlib.h>

#include "context.h"
#include "driver.h"
#include "error.h"
#include "result.h"

CUBIND_THREAD_LOCAL cubind__thread_cache cubind__thread_ctx;

static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext *primary; /* device_count entries, under primary_lock */

/* The device ordinal of `ctx` (current on this thread); ordinals and CUdevice need not match. */
static cubind_status device_of_current(const char *what, int *ordinal) {
  CUdevice dev, candidate;
  int i, count = cubind__device_count();
  CUresult r = cubind__drv.cuCtxGetDevice(&dev);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_CONTEXT, "%s: cuCtxGetDevice failed", what);
  for (i = 0; i < count; i++) {
    r = cubind__drv.cuDeviceGet(&candidate, i);
    if (r != CUDA_SUCCESS)
      return cubind__fail_cuda(r, CUBIND_ERROR_CONTEXT, "%s: cuDeviceGet(%d) failed", what, i);
    if (candidate == dev) {
      *ordinal = i;
      return CUBIND_SUCCESS;
    }
  }
  return cubind__fail(CUBIND_ERROR_CONTEXT,
                      "%s: the current context's device is not among the %d visible devices", what,
                      count);
}

/* Retains (once per process) the primary context of device `ordinal` into *ctx. */
static cubind_status primary_context(const char *what, int ordinal, CUcontext *ctx) {
  cubind_status status = CUBIND_SUCCESS;
  CUdevice dev;
  CUresult r;

  pthread_mutex_lock(&primary_lock);
  if (!primary) {
    primary = calloc((size_t)cubind__device_count(), sizeof *primary);
    if (!primary) {
      pthread_mutex_unlock(&primary_lock);
      return cubind__fail(CUBIND_ERROR_OUT_OF_MEMORY, "%s: out of host memory", what);
    }
  }
  if (!primary[ordinal]) {
    r = cubind__drv.cuDeviceGet(&dev, ordinal);
    if (r == CUDA_SUCCESS) {
      r = cubind__drv.cuDevicePrimaryCtxRetain(&primary[ordinal], dev);
      if (r != CUDA_SUCCESS) {
        primary[ordinal] = NULL;
        status =
            cubind__fail_cuda(r, CUBIND_ERROR_CONTEXT,
                              "%s: cuDevicePrimaryCtxRetain failed for device %d", what, ordinal);
      }
    } else {
      status = cubind__fail_cuda(r, CUBIND_ERROR_INVALID_DEVICE, "%s: cuDeviceGet(%d) failed", what,
                                 ordinal);
    }
  }
  *ctx = primary[ordinal];
  pthread_mutex_unlock(&primary_lock);
  return status;
}

cubind_status cubind__thread_context(const char *what, CUcontext *ctx, int *device) {
  CUcontext current = NULL;
  cubind_status status;
  CUresult r = cubind__drv.cuCtxGetCurrent(&current);
  if (CUBIND_UNLIKELY(r != CUDA_SUCCESS))
    return cubind__fail_cuda(r, CUBIND_ERROR_CONTEXT, "%s: cuCtxGetCurrent failed", what);
  if (CUBIND_LIKELY(current != NULL && current == cubind__thread_ctx.context)) {
    *ctx = current;
    *device = cubind__thread_ctx.device;
    return CUBIND_SUCCESS;
  }
  if (current) { /* a context we have not seen on this thread: find its device */
    status = device_of_current(what, device);
    if (status != CUBIND_SUCCESS) return status;
  } else {
    status = primary_context(what, cubind__thread_ctx.selected, &current);
    if (status != CUBIND_SUCCESS) return status;
    r = cubind__drv.cuCtxSetCurrent(current);
    if (r != CUDA_SUCCESS)
      return cubind__fail_cuda(r, CUBIND_ERROR_CONTEXT,
                               "%s: cuCtxSetCurrent failed for the primary context of device %d",
                               what, cubind__thread_ctx.selected);
    *device = cubind__thread_ctx.selected;
  }
  cubind__thread_ctx.context = current;
  cubind__thread_ctx.device = *device;
  *ctx = current;
  return CUBIND_SUCCESS;
}

cubind_status cubind_set_device(int ordinal) {
  CUcontext ctx;
  CUresult r;
  cubind_status status = cubind__driver_ready("cubind_set_device");
  if (status != CUBIND_SUCCESS) return status;
  if (ordinal < 0 || ordinal >= cubind__device_count())
    return cubind__fail(CUBIND_ERROR_INVALID_DEVICE,
                        "cubind_set_device: device %d does not exist (%d device%s visible)",
                        ordinal, cubind__device_count(), cubind__device_count() == 1 ? "" : "s");
  status = primary_context("cubind_set_device", ordinal, &ctx);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuCtxSetCurrent(ctx);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_CONTEXT,
                             "cubind_set_device: cuCtxSetCurrent failed for device %d", ordinal);
  cubind__thread_ctx.selected = ordinal;
  cubind__thread_ctx.context = ctx;
  cubind__thread_ctx.device = ordinal;
  return CUBIND_SUCCESS;
}

cubind_status cubind_get_device(int *ordinal) {
  CUcontext ctx;
  cubind_status status;
  if (!ordinal)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "cubind_get_device: ordinal is NULL");
  status = cubind__driver_ready("cubind_get_device");
  if (status != CUBIND_SUCCESS) return status;
  return cubind__thread_context("cubind_get_device", &ctx, ordinal);
}

cubind_status cubind__enter(const char *what, CUcontext *ctx, int *device) {
  CUcontext current;
  int ordinal = 0;
  cubind_status status = cubind__driver_ready(what);
  if (status == CUBIND_SUCCESS) status = cubind__thread_context(what, &current, &ordinal);
  if (status == CUBIND_SUCCESS && ctx) *ctx = current;
  if (status == CUBIND_SUCCESS && device) *device = ordinal;
  return status;
}
