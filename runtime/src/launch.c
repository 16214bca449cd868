/*
 * launch.c: cubind_module_launch (behind `<kernel>_launch`): the argument checks, the slow path
 * of cubind__launch_prepare (launch.h), the configuration checks against the kernel's cached
 * limits, cuLaunchKernel, and launches with attributes (clusters, cooperative) through
 * cuLaunchKernelEx.
 *
 * The launch fast path, once the kernel is resolved on the thread's device: an atomic flag read,
 * cuCtxGetCurrent compared with the per-thread cache, an acquire load of the kernel's slot, the
 * configuration checks against its cached limits, cuLaunchKernel. No lock, no allocation.
 */
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "driver.h"
#include "error.h"
#include "kernel.h"
#include "launch.h"
#include "result.h"

void cubind__describe_launch(char *buf, size_t size, const char *entry,
                             const cubind_module *module, unsigned kernel_index,
                             const cubind_config *cfg) {
  /* names clipped, so that the dims (and the CUDA error the caller appends) always fit */
  const char *name = module->kernels[kernel_index].name;
  if (!cfg) {
    snprintf(buf, size, "%.120s_%s: kernel '%.120s' (module %.60s) cfg=NULL", name, entry, name,
             module->name);
    return;
  }
  snprintf(buf, size,
           "%.120s_%s: kernel '%.120s' (module %.60s) grid=(%u,%u,%u) block=(%u,%u,%u) "
           "shared=%u",
           name, entry, name, module->name, cfg->grid.x, cfg->grid.y, cfg->grid.z, cfg->block.x,
           cfg->block.y, cfg->block.z, cfg->shared_bytes);
}

cubind_status cubind__launch_arguments_failure(const char *entry, const cubind_module *module,
                                               unsigned kernel_index, const cubind_config *cfg,
                                               void **args) {
  char what[64];
  snprintf(what, sizeof what, "cubind_module_%s", entry);
  if (!module || !cfg || kernel_index >= module->num_kernels)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                        "%s: %s (module %s, kernel index %u of %u)", what,
                        !module ? "module is NULL"
                        : !cfg  ? "cfg is NULL"
                                : "no such kernel",
                        module ? module->name : "?", kernel_index,
                        module ? module->num_kernels : 0);
  (void)args;
  return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                      "%s: args is NULL for kernel '%s' (module %s), which has %u parameters",
                      what, module->kernels[kernel_index].name, module->name,
                      module->kernels[kernel_index].num_params);
}

cubind_status cubind__launch_prepare_slow(const char *entry, const cubind_module *module,
                                          unsigned kernel_index, const cubind_config *cfg,
                                          CUresult r, const cubind__kernel_slot **kernel,
                                          int *device) {
  char what[512];
  CUcontext ctx;
  cubind_status status;
  cubind__describe_launch(what, sizeof what, entry, module, kernel_index, cfg);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_CONTEXT, "%s: cuCtxGetCurrent failed", what);
  status = cubind__enter(what, &ctx, device);
  if (status == CUBIND_SUCCESS)
    status = cubind__kernel_resolve(what, module, ctx, *device, kernel_index, kernel);
  return status;
}

/* The precise reason a configuration is refused (slow path of the checks). */
static CUBIND_COLD cubind_status config_failure(const char *entry, const cubind_module *module,
                                                unsigned kernel_index, const cubind_config *cfg,
                                                const cubind__kernel_slot *k, int device) {
  const unsigned grid[3] = {cfg->grid.x, cfg->grid.y, cfg->grid.z};
  const unsigned block[3] = {cfg->block.x, cfg->block.y, cfg->block.z};
  unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
  char what[512];
  int i;
  cubind__describe_launch(what, sizeof what, entry, module, kernel_index, cfg);
  for (i = 0; i < 3; i++)
    if (grid[i] == 0 || block[i] == 0)
      return cubind__fail(CUBIND_ERROR_INVALID_CONFIG,
                          "%s: %s.%c is 0; every grid and block dimension must be at least 1", what,
                          grid[i] == 0 ? "grid" : "block", "xyz"[i]);
  for (i = 0; i < 3; i++) {
    if (block[i] > k->max_block[i])
      return cubind__fail(CUBIND_ERROR_INVALID_CONFIG,
                          "%s: block.%c=%u exceeds device %d's maximum of %u", what, "xyz"[i],
                          block[i], device, k->max_block[i]);
    if (grid[i] > k->max_grid[i])
      return cubind__fail(CUBIND_ERROR_INVALID_CONFIG,
                          "%s: grid.%c=%u exceeds device %d's maximum of %u", what, "xyz"[i],
                          grid[i], device, k->max_grid[i]);
  }
  if (threads > k->max_threads)
    return cubind__fail(CUBIND_ERROR_INVALID_CONFIG,
                        "%s: a block of %llu threads exceeds the kernel's maximum of %u on device "
                        "%d (its __launch_bounds__ or its register use limits it)",
                        what, threads, k->max_threads, device);
  return cubind__fail(CUBIND_ERROR_INVALID_CONFIG,
                      "%s: %u bytes of dynamic shared memory exceed the %u bytes this kernel can "
                      "have on device %d",
                      what, cfg->shared_bytes, k->max_dynamic_shared, device);
}

/* cuLaunchKernel's failure, reported (slow path). */
static CUBIND_COLD cubind_status launch_failure(CUresult r, const char *entry,
                                                const cubind_module *module, unsigned kernel_index,
                                                const cubind_config *cfg) {
  const cubind_kernel_info *kernel = &module->kernels[kernel_index];
  return cubind__fail_cuda(r, CUBIND_ERROR_LAUNCH,
                           "%.120s_%s: cuLaunchKernel failed for kernel '%.120s' (module "
                           "%.60s) grid=(%u,%u,%u) block=(%u,%u,%u) shared=%u stream=0x%llx",
                           kernel->name, entry, kernel->name, module->name, cfg->grid.x,
                           cfg->grid.y, cfg->grid.z, cfg->block.x, cfg->block.y, cfg->block.z,
                           cfg->shared_bytes, CUBIND_STREAM_ARG(cfg->stream));
}

/*
 * A launch with attributes (slow path): a thread block cluster (cfg->cluster, or the kernel's
 * own __cluster_dims__) and/or a cooperative launch, checked, then cuLaunchKernelEx.
 */
static CUBIND_COLD cubind_status launch_ex(const char *entry, const cubind_module *module,
                                           unsigned kernel_index, const cubind_config *cfg,
                                           void **args, const cubind__kernel_slot *k, int device) {
  const unsigned grid[3] = {cfg->grid.x, cfg->grid.y, cfg->grid.z};
  const unsigned asked[3] = {cfg->cluster.x, cfg->cluster.y, cfg->cluster.z};
  int has_cluster = (asked[0] | asked[1] | asked[2]) != 0;
  int cooperative = (cfg->flags & CUBIND_LAUNCH_COOPERATIVE) != 0;
  unsigned dims[3] = {0, 0, 0};
  CUlaunchAttribute attrs[2];
  CUlaunchConfig launch;
  char what[512];
  CUresult r;
  int i;
  cubind__describe_launch(what, sizeof what, entry, module, kernel_index, cfg);
  if (cfg->flags & ~CUBIND_LAUNCH_COOPERATIVE)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "%s: unknown launch flags 0x%x", what,
                        cfg->flags & ~CUBIND_LAUNCH_COOPERATIVE);
  for (i = 0; i < 3; i++)
    dims[i] = has_cluster ? (asked[i] ? asked[i] : 1) : k->cluster_required[i];
  if (has_cluster && k->cluster_required[0] &&
      (dims[0] != k->cluster_required[0] || dims[1] != k->cluster_required[1] ||
       dims[2] != k->cluster_required[2]))
    return cubind__fail(CUBIND_ERROR_INVALID_CONFIG,
                        "%s: cluster=(%u,%u,%u) differs from the kernel's "
                        "__cluster_dims__(%u,%u,%u); leave cfg.cluster at {0,0,0} or match it",
                        what, dims[0], dims[1], dims[2], k->cluster_required[0],
                        k->cluster_required[1], k->cluster_required[2]);
  for (i = 0; dims[0] && i < 3; i++)
    if (grid[i] % dims[i])
      return cubind__fail(CUBIND_ERROR_INVALID_CONFIG,
                          "%s: grid.%c=%u is not a multiple of the cluster's %c dimension %u%s",
                          what, "xyz"[i], grid[i], "xyz"[i], dims[i],
                          has_cluster ? "" : " (the kernel's __cluster_dims__)");
  if (!has_cluster && !cooperative) /* only the kernel's own cluster dims: a plain launch */
    r = cubind__drv.cuLaunchKernel(k->function, grid[0], grid[1], grid[2], cfg->block.x,
                                   cfg->block.y, cfg->block.z, cfg->shared_bytes, cfg->stream,
                                   args, NULL);
  else {
    unsigned n = 0;
    if (!cubind__drv.cuLaunchKernelEx)
      return cubind__fail(CUBIND_ERROR_DRIVER_TOO_OLD,
                          "%s: cluster and cooperative launches need cuLaunchKernelEx, which "
                          "this CUDA driver lacks (11.8 or newer has it)",
                          what);
    if (cooperative && cubind__drv.cuOccupancyMaxActiveBlocksPerMultiprocessor) {
      int per_sm = 0, sms = 0;
      CUdevice dev;
      unsigned long long blocks = (unsigned long long)grid[0] * grid[1] * grid[2];
      if (cubind__drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(
              &per_sm, k->function, (int)(cfg->block.x * cfg->block.y * cfg->block.z),
              cfg->shared_bytes) == CUDA_SUCCESS &&
          cubind__drv.cuDeviceGet(&dev, device) == CUDA_SUCCESS &&
          cubind__drv.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) ==
              CUDA_SUCCESS &&
          blocks > (unsigned long long)per_sm * (unsigned long long)sms)
        return cubind__fail(CUBIND_ERROR_INVALID_CONFIG,
                            "%s: a cooperative launch of %llu blocks exceeds the %llu blocks "
                            "device %d can run at once (%d per multiprocessor x %d "
                            "multiprocessors at this block size and shared memory)",
                            what, blocks, (unsigned long long)per_sm * (unsigned long long)sms,
                            device, per_sm, sms);
    }
    memset(attrs, 0, sizeof attrs);
    if (has_cluster) {
      attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attrs[n].value.clusterDim.x = dims[0];
      attrs[n].value.clusterDim.y = dims[1];
      attrs[n].value.clusterDim.z = dims[2];
      n++;
    }
    if (cooperative) {
      attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      attrs[n].value.cooperative = 1;
      n++;
    }
    memset(&launch, 0, sizeof launch);
    launch.gridDimX = grid[0];
    launch.gridDimY = grid[1];
    launch.gridDimZ = grid[2];
    launch.blockDimX = cfg->block.x;
    launch.blockDimY = cfg->block.y;
    launch.blockDimZ = cfg->block.z;
    launch.sharedMemBytes = cfg->shared_bytes;
    launch.hStream = cfg->stream;
    launch.attrs = attrs;
    launch.numAttrs = n;
    r = cubind__drv.cuLaunchKernelEx(&launch, k->function, args, NULL);
  }
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_LAUNCH,
                             "%s: %s failed (cluster=(%u,%u,%u)%s)", what,
                             has_cluster || cooperative ? "cuLaunchKernelEx" : "cuLaunchKernel",
                             dims[0], dims[1], dims[2], cooperative ? ", cooperative" : "");
  cubind__note_launch(module, kernel_index, cfg);
  return CUBIND_SUCCESS;
}

/*
 * Checks the configuration against the kernel slot's cached limits and launches. `d - 1 >= max`
 * (unsigned) is "d == 0 or d > max": one comparison per dimension; config_failure says which.
 * `device` is the one `k` was resolved for (for messages).
 */
static inline cubind_status launch_checked(const char *entry, const cubind_module *module,
                                           unsigned kernel_index, const cubind_config *cfg,
                                           void **args, const cubind__kernel_slot *k, int device) {
  CUresult r;
  if (CUBIND_UNLIKELY(cfg->block.x - 1u >= k->max_block[0] ||
                      cfg->block.y - 1u >= k->max_block[1] ||
                      cfg->block.z - 1u >= k->max_block[2] || cfg->grid.x - 1u >= k->max_grid[0] ||
                      cfg->grid.y - 1u >= k->max_grid[1] || cfg->grid.z - 1u >= k->max_grid[2] ||
                      (unsigned long long)cfg->block.x * cfg->block.y * cfg->block.z >
                          k->max_threads ||
                      cfg->shared_bytes > k->max_dynamic_shared))
    return config_failure(entry, module, kernel_index, cfg, k, device);
  if (CUBIND_UNLIKELY((cfg->flags | cfg->cluster.x | cfg->cluster.y | cfg->cluster.z |
                       k->cluster_required[0]) != 0))
    return launch_ex(entry, module, kernel_index, cfg, args, k, device);

  r = cubind__drv.cuLaunchKernel(k->function, cfg->grid.x, cfg->grid.y, cfg->grid.z, cfg->block.x,
                                 cfg->block.y, cfg->block.z, cfg->shared_bytes, cfg->stream, args,
                                 NULL);
  if (CUBIND_UNLIKELY(r != CUDA_SUCCESS))
    return launch_failure(r, entry, module, kernel_index, cfg);
  cubind__note_launch(module, kernel_index, cfg);
  return CUBIND_SUCCESS;
}

cubind_status cubind__launch_resolved(const char *entry, const cubind_module *module,
                                      unsigned kernel_index, const cubind_config *cfg, void **args,
                                      const cubind__kernel_slot *k, int device) {
  return launch_checked(entry, module, kernel_index, cfg, args, k, device);
}

/* A launch whose kernel is not resolved on this thread's device and context yet (slow path). */
static CUBIND_COLD cubind_status launch_slow(const cubind_module *module, unsigned kernel_index,
                                             const cubind_config *cfg, void **args, CUresult r) {
  const cubind__kernel_slot *k = NULL;
  int device = 0;
  cubind_status status =
      cubind__launch_prepare_slow("launch", module, kernel_index, cfg, r, &k, &device);
  if (status != CUBIND_SUCCESS) return status;
  return launch_checked("launch", module, kernel_index, cfg, args, k, device);
}

cubind_status cubind_module_launch(const cubind_module *module, unsigned kernel_index,
                                   const cubind_config *cfg, void **args) {
  const cubind__kernel_slot *k;
  int device;
  CUresult r;
  cubind_status status = cubind__check_launch("launch", module, kernel_index, cfg, args);
  if (CUBIND_UNLIKELY(status != CUBIND_SUCCESS)) return status;
  if (CUBIND_LIKELY(cubind__launch_fast(module, kernel_index, &k, &device, &r)))
    return launch_checked("launch", module, kernel_index, cfg, args, k, device);
  return launch_slow(module, kernel_index, cfg, args, r);
}
