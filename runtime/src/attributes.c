/*
 * attributes.c: per-kernel facts behind `<kernel>_attributes` (cuFuncGetAttribute, the cached
 * limits, the occupancy-maximising block size) and `<kernel>_config_occupancy`.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "driver.h"
#include "error.h"
#include "kernel.h"
#include "result.h"

/* The kernel's slot on the calling thread's device (resolving it if needed). */
static cubind_status kernel_for_query(const char *what, const cubind_module *module,
                                      unsigned kernel_index, const cubind__kernel_slot **k) {
  cubind_status status;
  CUcontext ctx;
  int device;
  if (!module || kernel_index >= module->num_kernels)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "%s: no such kernel", what);
  status = cubind__enter(what, &ctx, &device);
  if (status == CUBIND_SUCCESS)
    status = cubind__kernel_resolve(what, module, ctx, device, kernel_index, k);
  return status;
}

cubind_status cubind_module_kernel_attributes(const cubind_module *module, unsigned kernel_index,
                                              cubind_kernel_attributes *out) {
  static const struct {
    CUfunction_attribute attribute;
    const char *name;
    size_t offset;
  } fields[] = {
      {CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS", offsetof(cubind_kernel_attributes, num_regs)},
      {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES",
       offsetof(cubind_kernel_attributes, static_shared_bytes)},
      {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "LOCAL_SIZE_BYTES",
       offsetof(cubind_kernel_attributes, local_bytes)},
      {CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, "CONST_SIZE_BYTES",
       offsetof(cubind_kernel_attributes, const_bytes)},
      {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK",
       offsetof(cubind_kernel_attributes, max_threads_per_block)},
      {CU_FUNC_ATTRIBUTE_PTX_VERSION, "PTX_VERSION",
       offsetof(cubind_kernel_attributes, ptx_version)},
      {CU_FUNC_ATTRIBUTE_BINARY_VERSION, "BINARY_VERSION",
       offsetof(cubind_kernel_attributes, binary_version)},
  };
  const cubind__kernel_slot *k = NULL;
  char what[256];
  cubind_status status;
  size_t i;
  CUresult r;
  snprintf(what, sizeof what, "%s_attributes",
           module && kernel_index < module->num_kernels ? module->kernels[kernel_index].name
                                                        : "cubind_module_kernel");
  if (!out) return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "%s: out is NULL", what);
  memset(out, 0, sizeof *out);
  status = kernel_for_query(what, module, kernel_index, &k);
  if (status != CUBIND_SUCCESS) return status;
  for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    r = cubind__drv.cuFuncGetAttribute((int *)((char *)out + fields[i].offset),
                                       fields[i].attribute, k->function);
    if (r != CUDA_SUCCESS)
      return cubind__fail_cuda(r, CUBIND_ERROR_CUDA, "%s: cuFuncGetAttribute(%s) failed", what,
                               fields[i].name);
  }
  out->max_dynamic_shared_bytes = (int)k->max_dynamic_shared;
  for (i = 0; i < 3; i++)
    out->cluster_dims[i] = k->cluster_required[i];
  if (cubind__drv.cuOccupancyMaxPotentialBlockSize) {
    r = cubind__drv.cuOccupancyMaxPotentialBlockSize(&out->occupancy_min_grid_size,
                                                     &out->occupancy_block_size, k->function,
                                                     NULL, 0, 0);
    if (r != CUDA_SUCCESS)
      return cubind__fail_cuda(r, CUBIND_ERROR_CUDA,
                               "%s: cuOccupancyMaxPotentialBlockSize failed", what);
  }
  return CUBIND_SUCCESS;
}

cubind_status cubind_module_config_occupancy(const cubind_module *module, unsigned kernel_index,
                                             size_t n, unsigned shared_bytes, cubind_config *out) {
  const cubind__kernel_slot *k = NULL;
  int min_grid = 0, block = 0;
  char what[256];
  cubind_status status;
  CUresult r;
  snprintf(what, sizeof what, "%s_config_occupancy",
           module && kernel_index < module->num_kernels ? module->kernels[kernel_index].name
                                                        : "cubind_module_kernel");
  if (!out) return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "%s: out is NULL", what);
  status = kernel_for_query(what, module, kernel_index, &k);
  if (status != CUBIND_SUCCESS) return status;
  if (shared_bytes > k->max_dynamic_shared)
    return cubind__fail(CUBIND_ERROR_INVALID_CONFIG,
                        "%s: %u bytes of dynamic shared memory exceed the %u bytes this kernel "
                        "can have",
                        what, shared_bytes, k->max_dynamic_shared);
  if (!cubind__drv.cuOccupancyMaxPotentialBlockSize)
    return cubind__fail(CUBIND_ERROR_DRIVER_TOO_OLD,
                        "%s: the CUDA driver has no cuOccupancyMaxPotentialBlockSize", what);
  r = cubind__drv.cuOccupancyMaxPotentialBlockSize(&min_grid, &block, k->function, NULL,
                                                   shared_bytes, 0);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_CUDA, "%s: cuOccupancyMaxPotentialBlockSize failed",
                             what);
  if (block <= 0)
    return cubind__fail(CUBIND_ERROR_INVALID_CONFIG,
                        "%s: no block size fits %u bytes of dynamic shared memory", what,
                        shared_bytes);
  *out = cubind_config_1d(n, (unsigned)block);
  out->shared_bytes = shared_bytes;
  return CUBIND_SUCCESS;
}
