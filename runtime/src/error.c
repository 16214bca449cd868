/*
 * error.c: status names and messages (from CUBIND_STATUS_TABLE), the per-thread last-error
 * message, the error hook, and the translation of driver results into statuses and text.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Long enough for a launch message with a module, kernel and a CUDA error description. */
#define CUBIND_MESSAGE_SIZE 1024

static CUBIND_THREAD_LOCAL char last_error[CUBIND_MESSAGE_SIZE];

CUBIND_THREAD_LOCAL cubind__launch_note cubind__last_launch;

static cubind_error_hook error_hook;
static void *error_hook_data;

const char *cubind_status_string(cubind_status status) {
  switch (status) {
#define CUBIND_STATUS_CASE_(name, value, message)                                                  \
  case name:                                                                                       \
    return message;
    CUBIND_STATUS_TABLE(CUBIND_STATUS_CASE_)
#undef CUBIND_STATUS_CASE_
  }
  return "unknown cubind status";
}

const char *cubind_status_name(cubind_status status) {
  switch (status) {
#define CUBIND_STATUS_CASE_(name, value, message)                                                  \
  case name:                                                                                       \
    return #name;
    CUBIND_STATUS_TABLE(CUBIND_STATUS_CASE_)
#undef CUBIND_STATUS_CASE_
  }
  return "CUBIND_UNKNOWN_STATUS";
}

const char *cubind_last_error(void) { return last_error; }

void cubind_set_error_hook(cubind_error_hook hook, void *user_data) {
  /* Atomic stores keep a late change well-defined; the documented rule is "set it first". */
  __atomic_store_n(&error_hook_data, user_data, __ATOMIC_RELAXED);
  __atomic_store_n(&error_hook, hook, __ATOMIC_RELEASE);
}

/* Hands the finished message to the hook, if any, and returns `status`. */
static cubind_status report(cubind_status status) {
  cubind_error_hook hook = __atomic_load_n(&error_hook, __ATOMIC_ACQUIRE);
  if (hook) hook(status, last_error, __atomic_load_n(&error_hook_data, __ATOMIC_RELAXED));
  return status;
}

cubind_status cubind__fail(cubind_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  return report(status);
}

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
  const char *name = NULL, *text = NULL;
  cubind_status status = cubind__status_from_cuda(result, fallback);
  size_t used;
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  /* The driver's own tables; absent only if it failed to load (then we never get here). */
  if (!cubind__drv.cuGetErrorName || cubind__drv.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = NULL;
  if (!cubind__drv.cuGetErrorString || cubind__drv.cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = NULL;
  used = strlen(last_error);
  if (name)
    snprintf(last_error + used, sizeof last_error - used, ": %s (%s)", name,
             text ? text : "no description");
  else
    snprintf(last_error + used, sizeof last_error - used, ": CUDA error %d", (int)result);

  /* Faults are asynchronous: they surface in a later call, so name the kernel that ran. */
  if (status == CUBIND_ERROR_KERNEL_FAULT && cubind__last_launch.module) {
    const cubind_config *c = &cubind__last_launch.cfg;
    used = strlen(last_error);
    snprintf(last_error + used, sizeof last_error - used,
             "; the calling thread's last launch was kernel '%s' (module %s) grid=(%u,%u,%u) "
             "block=(%u,%u,%u) shared=%u",
             cubind__last_launch.module->kernels[cubind__last_launch.kernel_index].name,
             cubind__last_launch.module->name, c->grid.x, c->grid.y, c->grid.z, c->block.x,
             c->block.y, c->block.z, c->shared_bytes);
  }
  return report(status);
}
