/*
 * elementwise.c: cubind_module_launch_elementwise and cubind_module_call_elementwise, behind the
 * stubs of <cubind/elementwise.cuh>'s kernels.
 *
 * Launch shape with cfg NULL: blocks of CUBIND_REDUCTION_BLOCK (256) threads, as many as the
 * device holds at once for the kernel (multiprocessors x cuOccupancyMaxActiveBlocksPerMultiprocessor,
 * computed at the kernel's first such launch and cached in its slot), fewer when n needs fewer:
 * the kernels loop over the grid, so one wave streams any n and no block idles.
 *
 * A reduction's scratch: a ticket counter (zero at the launch; the kernel's last block puts it
 * back to zero) and one partial per block (CUBIND_REDUCTION_PARTIALS_OFFSET + grid *
 * result_size bytes).
 *   - On the legacy default stream (cfg NULL, or a cfg whose stream is NULL), every reduction
 *     of a device shares one scratch of LEGACY_SCRATCH_BYTES, made and zeroed at the first
 *     such launch: that stream runs its work one item after another, and each kernel leaves
 *     the ticket at zero for the next. No allocation and no memset per call: they cost 3 us of
 *     GPU time per reduction (H100: 3% of a 256 MiB sum, 40% of a 4 MiB one).
 *   - On any other stream, or for a grid whose partials do not fit, the scratch is taken from
 *     a stream-ordered pool on the launch's stream, its ticket zeroed there, and given back
 *     after the kernel: no lock, no host allocation, nothing shared between streams. The pool
 *     is cubind's own, one per device, keeping its memory between calls: the device's default
 *     pool gives its memory back at every synchronisation, and mapping it again took longer
 *     than summing 256 MiB (H100: reductions at 0.59 of CUB's rate with it). Without the pool
 *     API, or if creating the pool fails, the default pool.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cubind/annotations.h>

#include "call.h"
#include "driver.h"
#include "elementwise.h"
#include "error.h"
#include "launch.h"
#include "result.h"

/* The grid for n elements when the caller gave no configuration (see above). */
static cubind_status default_grid(const char *entry, const cubind_module *module,
                                  unsigned kernel_index, const cubind_config *cfg,
                                  const cubind__kernel_slot *k, int device, size_t n,
                                  unsigned *grid) {
  unsigned full = __atomic_load_n(&k->elementwise_grid, __ATOMIC_RELAXED);
  size_t needed = n / CUBIND_REDUCTION_BLOCK + (n % CUBIND_REDUCTION_BLOCK != 0);
  if (CUBIND_UNLIKELY(full == 0)) {
    int per_sm = 1, sms = 1;
    CUdevice dev;
    CUresult r = cubind__drv.cuDeviceGet(&dev, device);
    if (r == CUDA_SUCCESS)
      r = cubind__drv.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    if (r == CUDA_SUCCESS && cubind__drv.cuOccupancyMaxActiveBlocksPerMultiprocessor)
      r = cubind__drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k->function,
                                                                 CUBIND_REDUCTION_BLOCK, 0);
    if (r != CUDA_SUCCESS) {
      char what[512];
      cubind__describe_launch(what, sizeof what, entry, module, kernel_index, cfg);
      return cubind__fail_cuda(r, CUBIND_ERROR_CUDA,
                               "%s: reading device %d's multiprocessor count and the kernel's "
                               "occupancy failed",
                               what, device);
    }
    full = (unsigned)(sms > 0 ? sms : 1) * (unsigned)(per_sm > 0 ? per_sm : 1);
    if (full > k->max_grid[0]) full = k->max_grid[0];
    __atomic_store_n(&((cubind__kernel_slot *)k)->elementwise_grid, full, __ATOMIC_RELAXED);
  }
  *grid = needed == 0 ? 1 : needed < full ? (unsigned)needed : full;
  return CUBIND_SUCCESS;
}

/*
 * The configuration of a launch: *cfg when given, else the default shape on the legacy default
 * stream; the kernel resolved on the calling thread's device into *k, *device.
 */
static cubind_status shape_config(const char *entry, const cubind_module *module,
                                  unsigned kernel_index, const cubind_config *cfg,
                                  const cubind_elementwise_shape *shape, cubind_config *out,
                                  const cubind__kernel_slot **k, int *device) {
  cubind_status status;
  if (cfg) {
    *out = *cfg;
  } else {
    *out = cubind_config_1d(CUBIND_REDUCTION_BLOCK, CUBIND_REDUCTION_BLOCK);
    out->stream = NULL;
  }
  status = cubind__launch_prepare(entry, module, kernel_index, out, k, device);
  if (status == CUBIND_SUCCESS && !cfg)
    status = default_grid(entry, module, kernel_index, out, *k, *device, shape->n, &out->grid.x);
  if (status == CUBIND_SUCCESS && shape->scratch_index != CUBIND_NO_SCRATCH &&
      (out->block.x != CUBIND_REDUCTION_BLOCK || out->block.y != 1 || out->block.z != 1 ||
       out->grid.y != 1 || out->grid.z != 1)) {
    char what[512];
    cubind__describe_launch(what, sizeof what, entry, module, kernel_index, out);
    return cubind__fail(CUBIND_ERROR_INVALID_CONFIG,
                        "%s: a reduction's grid is 1-D and its blocks are (%u,1,1) "
                        "(CUBIND_REDUCTION_BLOCK); pass cfg NULL to let cubind pick the shape",
                        what, CUBIND_REDUCTION_BLOCK);
  }
  return status;
}

/* Checks the arguments every entry shares (cfg may be NULL). */
static cubind_status check_arguments(const char *entry, const cubind_module *module,
                                     unsigned kernel_index, void **args,
                                     const cubind_elementwise_shape *shape) {
  if (CUBIND_UNLIKELY(!module || kernel_index >= module->num_kernels || !shape ||
                      (!args && module->kernels[kernel_index].num_params > 0) ||
                      shape->count_index >= module->kernels[kernel_index].num_params ||
                      (shape->scratch_index != CUBIND_NO_SCRATCH &&
                       (shape->scratch_index >= module->kernels[kernel_index].num_params ||
                        shape->result_size == 0))))
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                        "cubind_module_%s_elementwise: invalid arguments (module %s, kernel index "
                        "%u, args %s, shape %s)",
                        entry, module ? module->name : "NULL", kernel_index,
                        args ? "set" : "NULL", shape ? "set" : "NULL or inconsistent");
  return CUBIND_SUCCESS;
}

#define MAX_POOLS 64 /* devices with a pool of their own; any others use the default pool */

static CUmemoryPool reduction_pools[MAX_POOLS]; /* published with a release store */
static int pool_tried[MAX_POOLS];               /* under pools_lock */
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;

/* Device `device`'s pool for reduction scratch, created at its first use; NULL: none. */
static CUmemoryPool reduction_pool(int device) {
  CUmemoryPool pool;
  if (device < 0 || device >= MAX_POOLS || !cubind__drv.cuMemPoolCreate ||
      !cubind__drv.cuMemPoolSetAttribute || !cubind__drv.cuMemAllocFromPoolAsync)
    return NULL;
  pool = __atomic_load_n(&reduction_pools[device], __ATOMIC_ACQUIRE);
  if (pool) return pool;
  pthread_mutex_lock(&pools_lock);
  if (!pool_tried[device]) { /* once: a device whose pool fails uses the default one */
    CUmemPoolProps props;
    cuuint64_t keep_all = ~(cuuint64_t)0;
    pool_tried[device] = 1;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = device;
    if (cubind__drv.cuMemPoolCreate(&pool, &props) == CUDA_SUCCESS) {
      (void)cubind__drv.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_all);
      __atomic_store_n(&reduction_pools[device], pool, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&pools_lock);
  return __atomic_load_n(&reduction_pools[device], __ATOMIC_ACQUIRE);
}

/*
 * The legacy default stream's reduction scratch (see above): a ticket and the partials of a
 * grid of up to 4,000 blocks of 16-byte results, far more than a default grid on any current
 * GPU (132 multiprocessors x 8 blocks on an H100).
 */
#define LEGACY_SCRATCH_BYTES (64 * 1024)

static CUdeviceptr legacy_scratches[MAX_POOLS]; /* published with a release store */
static CUcontext legacy_contexts[MAX_POOLS];    /* where each was allocated */
static int legacy_tried[MAX_POOLS];             /* under pools_lock */

/* At exit: the scratch goes back to the pool after the legacy stream's last work, so that no
   allocation outlives the program (compute-sanitizer's leak check). */
static void free_legacy_scratches(void) {
  CUcontext current = NULL;
  int device;
  if (!cubind__drv.cuCtxGetCurrent || cubind__drv.cuCtxGetCurrent(&current) != CUDA_SUCCESS)
    return;
  for (device = 0; device < MAX_POOLS; device++) {
    CUdeviceptr scratch = __atomic_load_n(&legacy_scratches[device], __ATOMIC_ACQUIRE);
    if (!scratch || cubind__drv.cuCtxSetCurrent(legacy_contexts[device]) != CUDA_SUCCESS)
      continue;
    (void)cubind__drv.cuMemFreeAsync(scratch, CU_STREAM_LEGACY); /* best effort at exit */
    (void)cubind__drv.cuStreamSynchronize(CU_STREAM_LEGACY);
  }
  (void)cubind__drv.cuCtxSetCurrent(current);
}

/*
 * Device `device`'s legacy-stream scratch, made at its first use in stream order on the legacy
 * stream, in the current context; 0 when `bytes` do not fit or it cannot be made (the launch
 * then takes its scratch from the pool).
 */
static CUdeviceptr legacy_scratch(int device, size_t bytes) {
  CUdeviceptr scratch;
  CUmemoryPool pool;
  if (bytes > LEGACY_SCRATCH_BYTES || device < 0 || device >= MAX_POOLS) return 0;
  scratch = __atomic_load_n(&legacy_scratches[device], __ATOMIC_ACQUIRE);
  if (scratch) return scratch;
  if (!(pool = reduction_pool(device)) || !cubind__drv.cuMemFreeAsync ||
      !cubind__drv.cuMemsetD32Async)
    return 0;
  pthread_mutex_lock(&pools_lock);
  if (!legacy_tried[device]) { /* once: a device whose scratch fails uses the pool per call */
    static int exit_hook;
    legacy_tried[device] = 1;
    if (cubind__drv.cuCtxGetCurrent(&legacy_contexts[device]) == CUDA_SUCCESS &&
        cubind__drv.cuMemAllocFromPoolAsync(&scratch, LEGACY_SCRATCH_BYTES, pool,
                                            CU_STREAM_LEGACY) == CUDA_SUCCESS) {
      if (cubind__drv.cuMemsetD32Async(scratch, 0, LEGACY_SCRATCH_BYTES / 4, CU_STREAM_LEGACY) ==
          CUDA_SUCCESS) {
        __atomic_store_n(&legacy_scratches[device], scratch, __ATOMIC_RELEASE);
        if (!exit_hook) exit_hook = atexit(free_legacy_scratches) == 0;
      } else {
        (void)cubind__drv.cuMemFreeAsync(scratch, CU_STREAM_LEGACY);
      }
    }
  }
  pthread_mutex_unlock(&pools_lock);
  return __atomic_load_n(&legacy_scratches[device], __ATOMIC_ACQUIRE);
}

/* A reduction: its scratch on the stream, the launch, the scratch given back (see above). */
static cubind_status launch_reduction(const char *entry, const cubind_module *module,
                                      unsigned kernel_index, const cubind_config *cfg,
                                      void **args, const cubind__kernel_slot *k, int device,
                                      const cubind_elementwise_shape *shape) {
  CUdeviceptr scratch = 0;
  size_t bytes = CUBIND_REDUCTION_PARTIALS_OFFSET + (size_t)cfg->grid.x * shape->result_size;
  const char *failed = NULL;
  cubind_status status = CUBIND_SUCCESS;
  CUresult r = CUDA_ERROR_NOT_SUPPORTED, freed;
  CUmemoryPool pool;
  if (cfg->stream == NULL || cfg->stream == CU_STREAM_LEGACY) {
    if ((scratch = legacy_scratch(device, bytes)) != 0) {
      *(void **)args[shape->scratch_index] = (void *)(uintptr_t)scratch;
      return cubind__launch_resolved(entry, module, kernel_index, cfg, args, k, device);
    }
  }
  pool = reduction_pool(device);
  if (pool && cubind__drv.cuMemFreeAsync && cubind__drv.cuMemsetD32Async)
    r = cubind__drv.cuMemAllocFromPoolAsync(&scratch, bytes, pool, cfg->stream);
  else if (cubind__drv.cuMemAllocAsync && cubind__drv.cuMemFreeAsync &&
           cubind__drv.cuMemsetD32Async)
    r = cubind__drv.cuMemAllocAsync(&scratch, bytes, cfg->stream);
  if (r != CUDA_SUCCESS) {
    failed = pool ? "cuMemAllocFromPoolAsync of its scratch"
                  : "cuMemAllocAsync of its scratch (CUDA 11.2 or newer drivers have it)";
  } else {
    r = cubind__drv.cuMemsetD32Async(scratch, 0, 1, cfg->stream); /* the ticket */
    if (r != CUDA_SUCCESS) failed = "cuMemsetD32Async of its ticket";
    else {
      *(void **)args[shape->scratch_index] = (void *)(uintptr_t)scratch;
      status = cubind__launch_resolved(entry, module, kernel_index, cfg, args, k, device);
    }
    freed = cubind__drv.cuMemFreeAsync(scratch, cfg->stream);
    if (freed != CUDA_SUCCESS && !failed && status == CUBIND_SUCCESS) {
      r = freed;
      failed = "cuMemFreeAsync of its scratch";
    }
  }
  if (failed) {
    char what[512];
    cubind__describe_launch(what, sizeof what, entry, module, kernel_index, cfg);
    return cubind__fail_cuda(r, CUBIND_ERROR_CUDA, "%s: the reduction's %s (%zu bytes) failed",
                             what, failed, bytes);
  }
  return status;
}

cubind_status cubind__launch_shaped(const char *entry, const cubind_module *module,
                                    unsigned kernel_index, const cubind_config *cfg, void **args,
                                    const cubind__kernel_slot *k, int device,
                                    const cubind_elementwise_shape *shape) {
  if (shape->scratch_index != CUBIND_NO_SCRATCH)
    return launch_reduction(entry, module, kernel_index, cfg, args, k, device, shape);
  if (shape->n == 0) return CUBIND_SUCCESS;
  return cubind__launch_resolved(entry, module, kernel_index, cfg, args, k, device);
}

/*
 * The prologue both entries share: checks the arguments, then, unless there is nothing to
 * launch (n is 0 and nothing to reduce: *empty set to 1), shapes the launch into *out, *k and
 * *device (see shape_config).
 */
static cubind_status prepare_entry(const char *entry, const cubind_module *module,
                                   unsigned kernel_index, const cubind_config *cfg, void **args,
                                   const cubind_elementwise_shape *shape, cubind_config *out,
                                   const cubind__kernel_slot **k, int *device, int *empty) {
  cubind_status status = check_arguments(entry, module, kernel_index, args, shape);
  *empty = status == CUBIND_SUCCESS && shape->n == 0 &&
           shape->scratch_index == CUBIND_NO_SCRATCH;
  if (status != CUBIND_SUCCESS || *empty) return status;
  return shape_config(entry, module, kernel_index, cfg, shape, out, k, device);
}

cubind_status cubind_module_launch_elementwise(const cubind_module *module, unsigned kernel_index,
                                               const cubind_config *cfg, void **args,
                                               const cubind_elementwise_shape *shape) {
  const cubind__kernel_slot *k = NULL;
  cubind_config local;
  int device = 0, empty;
  cubind_status status = prepare_entry("launch", module, kernel_index, cfg, args, shape, &local,
                                       &k, &device, &empty);
  if (status != CUBIND_SUCCESS || empty) return status;
  return cubind__launch_shaped("launch", module, kernel_index, &local, args, k, device, shape);
}

cubind_status cubind_module_call_elementwise(const cubind_module *module, unsigned kernel_index,
                                             const cubind_config *cfg, void **args,
                                             const cubind_host_arg *host_args,
                                             unsigned num_host_args,
                                             const cubind_elementwise_shape *shape) {
  const cubind__kernel_slot *k = NULL;
  cubind_config local;
  int device = 0, empty;
  cubind_status status = prepare_entry("call", module, kernel_index, cfg, args, shape, &local,
                                       &k, &device, &empty);
  if (status == CUBIND_SUCCESS && empty) { /* nothing runs, but a bad argument is still one */
    char what[512];
    size_t arena_bytes;
    cubind__describe_launch(what, sizeof what, "call", module, kernel_index, cfg);
    return cubind__check_host_args(what, module, kernel_index, host_args, num_host_args,
                                   &arena_bytes);
  }
  if (status != CUBIND_SUCCESS) return status;
  return cubind__call(module, kernel_index, &local, args, host_args, num_host_args, shape);
}
