/*
 * result.c: the translation of driver results into statuses and messages, and the per-thread
 * note of the last launch that a kernel fault's message names.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "error.h"
#include "result.h"

CUBIND_THREAD_LOCAL cubind__launch_note cubind__last_launch;

cubind_status cubind__status_from_cuda(CUresult result, cubind_status fallback) {
  switch (result) {
  case CUDA_SUCCESS:
    return CUBIND_SUCCESS;
  case CUDA_ERROR_OUT_OF_MEMORY:
    return CUBIND_ERROR_OUT_OF_MEMORY;
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
    return CUBIND_ERROR_KERNEL_FAULT;
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
    return CUBIND_ERROR_NO_KERNEL_IMAGE;
  case CUDA_ERROR_NO_DEVICE:
    return CUBIND_ERROR_NO_DEVICE;
  case CUDA_ERROR_INVALID_DEVICE:
    return CUBIND_ERROR_INVALID_DEVICE;
  case CUDA_ERROR_INVALID_CONTEXT:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
  case CUDA_ERROR_CONTEXT_ALREADY_IN_USE:
  case CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE:
    return CUBIND_ERROR_CONTEXT;
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return CUBIND_ERROR_INVALID_CONFIG;
  default:
    return fallback;
  }
}

cubind_status cubind__fail_cuda(CUresult result, cubind_status fallback, const char *fmt, ...) {
  char message[CUBIND_MESSAGE_SIZE], error[256];
  cubind_status status = cubind__status_from_cuda(result, fallback);
  size_t used;
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  /* "CUDA_ERROR_NAME (description)", or "CUDA error 12345 (...)" for a result without a name */
  cubind__cuda_error_text(result, error, sizeof error);
  used = strlen(message);
  snprintf(message + used, sizeof message - used, ": %s", error);

  /* Faults are asynchronous: they surface in a later call, so name the kernel that ran. */
  if (status == CUBIND_ERROR_KERNEL_FAULT && cubind__last_launch.module) {
    const cubind_config *c = &cubind__last_launch.cfg;
    used = strlen(message);
    snprintf(message + used, sizeof message - used,
             "; the calling thread's last launch was kernel '%s' (module %s) grid=(%u,%u,%u) "
             "block=(%u,%u,%u) shared=%u",
             cubind__last_launch.module->kernels[cubind__last_launch.kernel_index].name,
             cubind__last_launch.module->name, c->grid.x, c->grid.y, c->grid.z, c->block.x,
             c->block.y, c->block.z, c->shared_bytes);
  }
  return cubind__fail(status, "%s", message);
}
