/*
 * kernel.c: a module's kernels resolved on a device, each at its own first launch there: the
 * function handle (cuModuleGetFunction), the ABI check against cuFuncGetParamInfo, the kernel's
 * limits and the lifted dynamic shared memory limit. Resolving kernels one by one keeps the
 * driver's own lazy loading (CUDA_MODULE_LOADING=LAZY) working: a module of 2000 kernels costs
 * what the kernels actually launched cost (resolving all of them up front, or asking every
 * kernel's parameter layout, makes the driver load every kernel: 68 ms instead of 14 ms for
 * 2000 kernels on an H100, bench/module_load.sh).
 *
 * Everything here runs under the image's lock; a kernel slot is published with a release store
 * of its function handle once the image's device slot is committed, which the launch path reads
 * with an acquire load (cubind__kernel_published).
 */
#include <stdio.h>

#include "driver.h"
#include "error.h"
#include "image.h"
#include "kernel.h"
#include "result.h"

/*
 * Compares the generator's parameter layout with the compiled kernel's (CUDA >= 12.4). Extra
 * kernel parameters beyond the stub's are not probed for: the driver has no parameter count, and
 * probing an index past the end is an API error that compute-sanitizer reports on every load.
 */
static cubind_status check_abi(const char *what, const cubind_module *module,
                               const cubind_kernel_info *kernel, CUfunction function) {
  size_t offset, size;
  unsigned i;
  CUresult r;
  for (i = 0; i < kernel->num_params; i++) {
    const cubind_param_info *p = &kernel->params[i];
    r = cubind__drv.cuFuncGetParamInfo(function, i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE)
      return cubind__fail(CUBIND_ERROR_ABI_MISMATCH,
                          "%s: kernel '%s' (module %s): the generated stub passes %u parameters "
                          "but the compiled kernel has only %u; regenerate the bindings from the "
                          "source the fatbin was built from",
                          what, kernel->name, module->name, kernel->num_params, i);
    if (r != CUDA_SUCCESS)
      return cubind__fail_cuda(r, CUBIND_ERROR_MODULE_LOAD,
                               "%s: cuFuncGetParamInfo failed for parameter %u of kernel '%s' "
                               "(module %s)",
                               what, i, kernel->name, module->name);
    if ((p->offset != CUBIND_PARAM_OFFSET_ANY && offset != p->offset) || size != p->size) {
      char at[32]; /* the stub's offset, when it has one */
      if (p->offset == CUBIND_PARAM_OFFSET_ANY)
        snprintf(at, sizeof at, "any offset");
      else
        snprintf(at, sizeof at, "offset %u", p->offset);
      return cubind__fail(CUBIND_ERROR_ABI_MISMATCH,
                          "%s: kernel '%s' (module %s): parameter %u '%s' is laid out at %s, "
                          "%u bytes by the generated stub but at offset %zu, %zu bytes in the "
                          "compiled kernel; regenerate the bindings from the source the fatbin "
                          "was built from",
                          what, kernel->name, module->name, i, p->name, at, p->size, offset,
                          size);
    }
  }
  return CUBIND_SUCCESS;
}

/* Caches what the pre-launch checks need and lifts the dynamic shared memory limit. */
static cubind_status prepare_kernel(const char *what, const cubind_module *module,
                                    const cubind_kernel_info *kernel, cubind__kernel_slot *k,
                                    int optin_shared) {
  int max_threads = 0, static_shared = 0;
  CUresult r = cubind__drv.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                              k->function);
  if (r == CUDA_SUCCESS)
    r = cubind__drv.cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                       k->function);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_MODULE_LOAD,
                             "%s: cuFuncGetAttribute failed for kernel '%s' (module %s)", what,
                             kernel->name, module->name);
  k->max_threads = (unsigned)max_threads;
  { /* __cluster_dims__ (CUDA 11.8+, sm_90+): best effort, 0 where the driver has no answer */
    static const CUfunction_attribute cluster[3] = {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
                                                    CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
                                                    CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH};
    int i, value;
    for (i = 0; i < 3; i++) {
      value = 0;
      if (cubind__drv.cuFuncGetAttribute(&value, cluster[i], k->function) != CUDA_SUCCESS ||
          value < 0)
        value = 0;
      k->cluster_required[i] = (unsigned)value;
    }
    if (!k->cluster_required[0] || !k->cluster_required[1] || !k->cluster_required[2])
      k->cluster_required[0] = k->cluster_required[1] = k->cluster_required[2] = 0;
  }
  /* Allow what the device allows (beyond the default 48 KiB), as <<<>>> users do by hand. */
  k->max_dynamic_shared =
      optin_shared > static_shared ? (unsigned)(optin_shared - static_shared) : 0;
  r = cubind__drv.cuFuncSetAttribute(k->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     (int)k->max_dynamic_shared);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_MODULE_LOAD,
                             "%s: cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES=%u) failed for "
                             "kernel '%s' (module %s)",
                             what, k->max_dynamic_shared, kernel->name, module->name);
  return CUBIND_SUCCESS;
}

/*
 * Resolves kernel `index` from the image loaded in `slot` (image lock held; the slot's context
 * current) into *k: its function handle, the ABI check, its limits. Publishes nothing.
 */
static cubind_status resolve(const char *what, const cubind_module *module, int device,
                             const cubind__image_slot *slot, unsigned index,
                             cubind__kernel_slot *k) {
  const cubind_kernel_info *kernel = &module->kernels[index];
  cubind_status status = CUBIND_SUCCESS;
  const char *call = "cuModuleGetFunction";
  CUresult r;
  k->function = NULL;
  r = cubind__drv.cuModuleGetFunction(&k->function, slot->cumodule, kernel->symbol);
  if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) /* lazy loading reports it here */
    return cubind__image_failure(what, module, device, call, r);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(
        r, r == CUDA_ERROR_NOT_FOUND ? CUBIND_ERROR_KERNEL_NOT_FOUND : CUBIND_ERROR_MODULE_LOAD,
        "%s: %s failed for kernel '%s' (symbol '%s') in module %s on "
        "device %d",
        what, call, kernel->name, kernel->symbol, module->name, device);
  if (cubind__drv.cuFuncGetParamInfo) status = check_abi(what, module, kernel, k->function);
  if (status == CUBIND_SUCCESS)
    status = prepare_kernel(what, module, kernel, k, slot->optin_shared);
  return status;
}

/*
 * Resolves kernel `index` into its slot `dst` unless it is there already, commits the image's
 * slot (the first kernel resolved from a fresh load makes it permanent), then publishes the
 * kernel with a release store of its function handle (image lock held).
 */
static cubind_status ensure(const char *what, const cubind_module *module, int device,
                            cubind__image_slot *slot, cubind__kernel_slot *dst, unsigned index) {
  cubind__kernel_slot k;
  cubind_status status;
  int i;
  if (__atomic_load_n(&dst->function, __ATOMIC_ACQUIRE)) return CUBIND_SUCCESS;
  status = resolve(what, module, device, slot, index, &k);
  if (status != CUBIND_SUCCESS) return status;
  cubind__image_commit(slot);
  dst->context = slot->context;
  for (i = 0; i < 3; i++) {
    dst->max_block[i] = slot->max_block[i];
    dst->max_grid[i] = slot->max_grid[i];
    dst->cluster_required[i] = k.cluster_required[i];
  }
  dst->max_threads = k.max_threads;
  dst->max_dynamic_shared = k.max_dynamic_shared;
  __atomic_store_n(&dst->function, k.function, __ATOMIC_RELEASE);
  return CUBIND_SUCCESS;
}

cubind_status cubind__kernel_resolve(const char *what, const cubind_module *module, CUcontext ctx,
                                     int device, unsigned index, const cubind__kernel_slot **out) {
  const cubind__kernel_slot *k;
  cubind__module_slots *slots;
  cubind__image_slot *slot;
  cubind__kernel_slot *dst;
  cubind_status status = cubind__module_check(what, module);
  if (status != CUBIND_SUCCESS) return status;
  k = cubind__kernel_published(module, device, index);
  if (k && k->context == ctx) { /* resolved already (this thread's first launch of it) */
    *out = k;
    return CUBIND_SUCCESS;
  }
  status = cubind__slots_get(what, module, &slots);
  if (status == CUBIND_SUCCESS)
    status = cubind__image_enter(what, module, slots->image, ctx, device, &slot);
  if (status != CUBIND_SUCCESS) return status;
  dst = &cubind__kernel_slots(slots)[(size_t)device * module->num_kernels + index];
  status = ensure(what, module, device, slot, dst, index);
  cubind__image_leave(slots->image, slot);
  if (status == CUBIND_SUCCESS) *out = dst;
  return status;
}
