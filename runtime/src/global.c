/*
 * global.c: cubind_module_global_copy, behind `<module>_<var>_to_device / _from_device`: a
 * module's __constant__ / __device__ variables, looked up once per device (cuModuleGetGlobal)
 * from the module's loaded image into a slot, published like kernels (release
 * store of the pointer), then copied without a lock. Modules that share an image share its
 * variables: one object, whichever module names it.
 */
#include <stdio.h>

#include "context.h"
#include "driver.h"
#include "error.h"
#include "image.h"
#include "result.h"
#include "slots.h"

/* Looks variable `index` up on the device (image entered: loaded there, its lock held). */
static cubind_status lookup(const char *what, const cubind_module *module, int device,
                            const cubind__image_slot *slot, unsigned index,
                            cubind__global_slot *g) {
  const cubind_global_info *info = &module->globals[index];
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  const char *call = "cuModuleGetGlobal";
  CUresult r = cubind__drv.cuModuleGetGlobal(&ptr, &bytes, slot->cumodule, info->symbol);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(
        r, r == CUDA_ERROR_NOT_FOUND ? CUBIND_ERROR_KERNEL_NOT_FOUND : CUBIND_ERROR_MODULE_LOAD,
        "%s: %s failed for variable '%s' (symbol '%s') in module %s on device %d", what, call,
        info->name, info->symbol, module->name, device);
  g->bytes = bytes;
  g->context = slot->context;
  __atomic_store_n(&g->ptr, ptr, __ATOMIC_RELEASE);
  return CUBIND_SUCCESS;
}

/* The variable's slot on `device`, looked up now if it is not yet (the first-use path). */
static cubind_status variable(const char *what, const cubind_module *module, CUcontext ctx,
                              int device, unsigned index, const cubind__global_slot **out) {
  cubind__module_slots *slots;
  cubind__image_slot *slot;
  cubind__global_slot *g;
  cubind_status status = cubind__slots_get(what, module, &slots);
  if (status == CUBIND_SUCCESS)
    status = cubind__image_enter(what, module, slots->image, ctx, device, &slot);
  if (status != CUBIND_SUCCESS) return status;
  cubind__image_commit(slot); /* loaded: it stays, whatever the lookup says */
  g = &slots->globals[(size_t)device * module->num_globals + index];
  if (!__atomic_load_n(&g->ptr, __ATOMIC_ACQUIRE))
    status = lookup(what, module, device, slot, index, g);
  cubind__image_leave(slots->image, slot);
  if (status == CUBIND_SUCCESS) *out = g;
  return status;
}

cubind_status cubind_module_global_copy(const cubind_module *module, unsigned global_index,
                                        void *host, size_t count, size_t elem_size,
                                        cubind_copy_direction direction) {
  const cubind_global_info *info;
  const cubind__global_slot *g = NULL;
  cubind__module_slots *slots;
  cubind_status status;
  const char *verb = direction == CUBIND_COPY_TO_DEVICE ? "to_device" : "from_device";
  char what[256];
  CUcontext ctx;
  size_t bytes;
  int device;
  CUresult r;

  if (!module || global_index >= module->num_globals ||
      (direction != CUBIND_COPY_TO_DEVICE && direction != CUBIND_COPY_FROM_DEVICE))
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                        "cubind_module_global_copy: no such module variable or direction");
  info = &module->globals[global_index];
  snprintf(what, sizeof what, "%s_%s_%s", module->name, info->name, verb);
  status = cubind__module_check(what, module);
  if (status != CUBIND_SUCCESS) return status;
  if (elem_size && count > (size_t)-1 / elem_size)
    return cubind__fail(CUBIND_ERROR_SIZE_OVERFLOW,
                        "%s: %zu elements of %zu bytes overflow size_t", what, count, elem_size);
  bytes = count * elem_size;
  if (bytes && !host)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "%s: the host buffer is NULL", what);
  status = cubind__enter(what, &ctx, &device);
  if (status != CUBIND_SUCCESS) return status;

  slots = cubind__slots_peek(module);
  if (slots) g = &slots->globals[(size_t)device * module->num_globals + global_index];
  if (!g || !__atomic_load_n(&g->ptr, __ATOMIC_ACQUIRE) || g->context != ctx) {
    status = variable(what, module, ctx, device, global_index, &g);
    if (status != CUBIND_SUCCESS) return status;
  }
  if (bytes > g->bytes)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                        "%s: %zu elements of %zu bytes (%zu bytes) do not fit in variable '%s' "
                        "of module %s (%zu bytes)",
                        what, count, elem_size, bytes, info->name, module->name, g->bytes);
  if (!bytes) return CUBIND_SUCCESS;
  if (direction == CUBIND_COPY_TO_DEVICE)
    r = cubind__drv.cuMemcpyHtoD(g->ptr, host, bytes);
  else
    r = cubind__drv.cuMemcpyDtoH(host, g->ptr, bytes);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_MEMCPY, "%s: %s of %zu bytes failed", what,
                             direction == CUBIND_COPY_TO_DEVICE ? "cuMemcpyHtoD" : "cuMemcpyDtoH",
                             bytes);
  return CUBIND_SUCCESS;
}
