/*
 * launch.c: cubind_module_launch (behind `<kernel>_launch`) and cubind_module_call (behind
 * `<kernel>_call`), plus cubind_config_1d.
 *
 * The launch fast path, once the module is loaded on the thread's device: an atomic flag read,
 * cuCtxGetCurrent compared with the per-thread cache, an acquire load of the device slot, the
 * configuration checks against cached limits, cuLaunchKernel. No lock, no allocation.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SCRATCH_ALIGNMENT 256 /* what cuMemAlloc guarantees; kernels may rely on it */

/* "doublify_launch: kernel 'doublify' (module vec) grid=(4,1,1) block=(256,1,1) shared=0" */
static void describe(char *buf, size_t size, const char *entry, const cubind_module *module,
                     unsigned kernel_index, const cubind_config *cfg) {
  snprintf(buf, size, "%s_%s: kernel '%s' (module %s) grid=(%u,%u,%u) block=(%u,%u,%u) shared=%u",
           module->kernels[kernel_index].name, entry, module->kernels[kernel_index].name,
           module->name, cfg->grid.x, cfg->grid.y, cfg->grid.z, cfg->block.x, cfg->block.y,
           cfg->block.z, cfg->shared_bytes);
}

/* Rejects NULL module/config, a kernel index out of range, and missing arguments. */
static cubind_status check_arguments(const char *entry, const cubind_module *module,
                                     unsigned kernel_index, const cubind_config *cfg, void **args) {
  if (!module || !cfg || kernel_index >= module->num_kernels)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                        "cubind_module_%s: %s (module %s, kernel index %u of %u)", entry,
                        !module ? "module is NULL"
                        : !cfg  ? "cfg is NULL"
                                : "no such kernel",
                        module ? module->name : "?", kernel_index,
                        module ? module->num_kernels : 0);
  if (!args && module->kernels[kernel_index].num_params > 0)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                        "cubind_module_%s: args is NULL for kernel '%s' (module %s), which has %u "
                        "parameters",
                        entry, module->kernels[kernel_index].name, module->name,
                        module->kernels[kernel_index].num_params);
  return CUBIND_SUCCESS;
}

/*
 * Everything before the launch when the fast path does not apply: driver, context, loading the
 * module, resolving the kernel. `r` is the result of the fast path's cuCtxGetCurrent (reported if
 * it failed). Out of line, so that the fast path stays small.
 */
static __attribute__((noinline, cold)) cubind_status
resolve_slow(const char *entry, cubind_module *module, unsigned kernel_index,
             const cubind_config *cfg, CUresult r, const cubind__kernel_slot **kernel,
             int *device) {
  char what[512];
  CUcontext ctx;
  cubind_status status;
  describe(what, sizeof what, entry, module, kernel_index, cfg);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_CONTEXT, "%s: cuCtxGetCurrent failed", what);
  status = cubind__driver_ready(what);
  if (status == CUBIND_SUCCESS) status = cubind__thread_context(what, &ctx, device);
  if (status == CUBIND_SUCCESS)
    status = cubind__module_slot(what, module, ctx, *device, kernel_index, kernel);
  return status;
}

/*
 * The thread's device and the kernel's resolved slot there; fast (no lock, no call but
 * cuCtxGetCurrent) once the kernel has been launched on this device.
 */
static inline cubind_status resolve(const char *entry, cubind_module *module, unsigned kernel_index,
                                    const cubind_config *cfg, const cubind__kernel_slot **kernel,
                                    int *device) {
  CUresult r = CUDA_SUCCESS;
  if (CUBIND_LIKELY(cubind__driver_loaded())) {
    CUcontext current = NULL;
    r = cubind__drv.cuCtxGetCurrent(&current);
    if (CUBIND_LIKELY(r == CUDA_SUCCESS && cubind__cached_device(current, device))) {
      const cubind__kernel_slot *k = cubind__fast_kernel(module, *device, kernel_index);
      if (CUBIND_LIKELY(k != NULL && k->context == current)) {
        *kernel = k;
        return CUBIND_SUCCESS;
      }
    }
  }
  return resolve_slow(entry, module, kernel_index, cfg, r, kernel, device);
}

/* The precise reason a configuration is refused (slow path of the checks). */
static __attribute__((noinline, cold)) cubind_status
config_failure(const char *entry, const cubind_module *module, unsigned kernel_index,
               const cubind_config *cfg, const cubind__kernel_slot *k, int device) {
  const unsigned grid[3] = {cfg->grid.x, cfg->grid.y, cfg->grid.z};
  const unsigned block[3] = {cfg->block.x, cfg->block.y, cfg->block.z};
  unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
  char what[512];
  int i;
  describe(what, sizeof what, entry, module, kernel_index, cfg);
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
static __attribute__((noinline, cold)) cubind_status
launch_failure(CUresult r, const char *entry, const cubind_module *module, unsigned kernel_index,
               const cubind_config *cfg) {
  const cubind_kernel_info *kernel = &module->kernels[kernel_index];
  return cubind__fail_cuda(r, CUBIND_ERROR_LAUNCH,
                           "%s_%s: cuLaunchKernel failed for kernel '%s' (module %s) "
                           "grid=(%u,%u,%u) block=(%u,%u,%u) shared=%u stream=0x%llx",
                           kernel->name, entry, kernel->name, module->name, cfg->grid.x,
                           cfg->grid.y, cfg->grid.z, cfg->block.x, cfg->block.y, cfg->block.z,
                           cfg->shared_bytes, CUBIND_STREAM_ARG(cfg->stream));
}

/*
 * A launch with attributes (slow path): a thread block cluster (cfg->cluster, or the kernel's
 * own __cluster_dims__) and/or a cooperative launch, checked, then cuLaunchKernelEx.
 */
static __attribute__((noinline, cold)) cubind_status
launch_ex(const char *entry, cubind_module *module, unsigned kernel_index,
          const cubind_config *cfg, void **args, const cubind__kernel_slot *k) {
  const unsigned grid[3] = {cfg->grid.x, cfg->grid.y, cfg->grid.z};
  const unsigned asked[3] = {cfg->cluster.x, cfg->cluster.y, cfg->cluster.z};
  int device = cubind__thread_ctx.device, has_cluster = (asked[0] | asked[1] | asked[2]) != 0;
  int cooperative = (cfg->flags & CUBIND_LAUNCH_COOPERATIVE) != 0;
  unsigned dims[3] = {0, 0, 0};
  CUlaunchAttribute attrs[2];
  CUlaunchConfig launch;
  char what[512];
  CUresult r;
  int i;
  describe(what, sizeof what, entry, module, kernel_index, cfg);
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
 * The device for messages is the thread's cached one (set by whichever path resolved `k`).
 */
static inline cubind_status launch_checked(const char *entry, cubind_module *module,
                                           unsigned kernel_index, const cubind_config *cfg,
                                           void **args, const cubind__kernel_slot *k) {
  CUresult r;
  if (CUBIND_UNLIKELY(cfg->block.x - 1u >= k->max_block[0] ||
                      cfg->block.y - 1u >= k->max_block[1] ||
                      cfg->block.z - 1u >= k->max_block[2] || cfg->grid.x - 1u >= k->max_grid[0] ||
                      cfg->grid.y - 1u >= k->max_grid[1] || cfg->grid.z - 1u >= k->max_grid[2] ||
                      (unsigned long long)cfg->block.x * cfg->block.y * cfg->block.z >
                          k->max_threads ||
                      cfg->shared_bytes > k->max_dynamic_shared))
    return config_failure(entry, module, kernel_index, cfg, k, cubind__thread_ctx.device);
  if (CUBIND_UNLIKELY((cfg->flags | cfg->cluster.x | cfg->cluster.y | cfg->cluster.z |
                       k->cluster_required[0]) != 0))
    return launch_ex(entry, module, kernel_index, cfg, args, k);

  r = cubind__drv.cuLaunchKernel(k->function, cfg->grid.x, cfg->grid.y, cfg->grid.z, cfg->block.x,
                                 cfg->block.y, cfg->block.z, cfg->shared_bytes, cfg->stream, args,
                                 NULL);
  if (CUBIND_UNLIKELY(r != CUDA_SUCCESS))
    return launch_failure(r, entry, module, kernel_index, cfg);
  cubind__note_launch(module, kernel_index, cfg);
  return CUBIND_SUCCESS;
}

/* A launch whose kernel is not resolved on this thread's device and context yet (slow path). */
static __attribute__((noinline, cold)) cubind_status
launch_slow(const char *entry, cubind_module *module, unsigned kernel_index,
            const cubind_config *cfg, void **args, CUresult r) {
  const cubind__kernel_slot *k = NULL;
  int device;
  cubind_status status = resolve_slow(entry, module, kernel_index, cfg, r, &k, &device);
  if (status != CUBIND_SUCCESS) return status;
  return launch_checked(entry, module, kernel_index, cfg, args, k);
}

/*
 * The launch: the fast path (driver ready, cuCtxGetCurrent is the thread's cached context, the
 * kernel resolved there) inline, everything else in launch_slow.
 */
static inline cubind_status launch(const char *entry, cubind_module *module, unsigned kernel_index,
                                   const cubind_config *cfg, void **args) {
  CUresult r = CUDA_SUCCESS;
  if (CUBIND_LIKELY(cubind__driver_loaded())) {
    CUcontext current = NULL;
    r = cubind__drv.cuCtxGetCurrent(&current);
    if (CUBIND_LIKELY(r == CUDA_SUCCESS && current != NULL &&
                      current == cubind__thread_ctx.context)) {
      const cubind__kernel_slot *k =
          cubind__fast_kernel(module, cubind__thread_ctx.device, kernel_index);
      if (CUBIND_LIKELY(k != NULL && k->context == current))
        return launch_checked(entry, module, kernel_index, cfg, args, k);
    }
  }
  return launch_slow(entry, module, kernel_index, cfg, args, r);
}

cubind_status cubind_module_launch(cubind_module *module, unsigned kernel_index,
                                   const cubind_config *cfg, void **args) {
  cubind_status status = check_arguments("launch", module, kernel_index, cfg, args);
  if (CUBIND_UNLIKELY(status != CUBIND_SUCCESS)) return status;
  return launch("launch", module, kernel_index, cfg, args);
}

/* ---- the host-buffer path ------------------------------------------------------------------ */

/*
 * Pageable host buffers. The driver copies pageable memory through its own small staging buffers
 * at a fraction of the link's rate (8-10 GB/s on an H100 against ~53 GB/s page-locked). For a
 * pageable buffer of at least `staging_min` bytes, _call page-locks the user's buffer in place for
 * the call (cuMemHostRegister), copies it directly, and unregisters it (cuMemHostUnregister) after
 * the final synchronisation, on every path; a buffer that cannot be registered is copied plainly.
 * Measured on an H100 (bench/run_all.sh, 2026-11-22): 16-19.5 GB/s round trips against the
 * driver's 8-10 GB/s from 16 MiB up (1.9-2.2x), neutral at 4 MiB and below; a ring of page-locked
 * chunks fed by memcpy lost to the driver (0.76-0.94x: one thread's memcpy caps it at ~8 GB/s).
 * Page-locked buffers (cuMemAllocHost / cuMemHostRegister memory, seen by cuPointerGetAttributes,
 * which reports no error for ordinary memory) and small ones take the driver's plain path.
 * CUBIND_PAGEABLE_STAGING=0 turns this off; CUBIND_STAGING_MIN (bytes) sets the threshold.
 */
#define MAX_REGISTERED 64 /* host arguments of one call that can be registered (a bit mask) */

static pthread_once_t staging_once = PTHREAD_ONCE_INIT;
static int staging_on = 1;
static size_t staging_min = (size_t)8 << 20;

static size_t env_bytes(const char *name, size_t fallback) {
  const char *e = getenv(name);
  char *end;
  unsigned long long v;
  if (!e || !*e) return fallback;
  v = strtoull(e, &end, 0);
  if (*end == 'k' || *end == 'K') v <<= 10;
  if (*end == 'm' || *end == 'M') v <<= 20;
  return (size_t)v;
}

static void staging_read_env(void) {
  const char *e = getenv("CUBIND_PAGEABLE_STAGING");
  if (e && strcmp(e, "0") == 0) staging_on = 0;
  staging_min = env_bytes("CUBIND_STAGING_MIN", staging_min);
}

/* For the tests: overrides the environment (on or off; the smallest registered buffer). */
CUBIND_INTERNAL void cubind__set_staging(int on, size_t min_bytes);
void cubind__set_staging(int on, size_t min_bytes) {
  pthread_once(&staging_once, staging_read_env);
  staging_on = on;
  staging_min = min_bytes;
}

/* One thread's device scratch arena on one device. */
typedef struct scratch_arena {
  CUdeviceptr base;
  size_t capacity;
  CUcontext context; /* where it was allocated */
} scratch_arena;

typedef struct thread_scratch {
  int num_devices;
  scratch_arena arenas[]; /* one per device */
} thread_scratch;

static pthread_once_t scratch_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t scratch_key;
static int scratch_key_ok;

/* Makes `ctx` current if it is not already (*current tracks it). */
static CUresult switch_to(CUcontext ctx, CUcontext *current) {
  CUresult r = CUDA_SUCCESS;
  if (ctx != *current) {
    r = cubind__drv.cuCtxSetCurrent(ctx);
    if (r == CUDA_SUCCESS) *current = ctx;
  }
  return r;
}

/*
 * Frees every arena of `ts` (each in its own context) and `ts` itself. Returns the first failure;
 * keeps freeing after one so that nothing else leaks. Leaves `restore` current afterwards.
 */
static cubind_status free_scratch(thread_scratch *ts, CUcontext restore) {
  cubind_status status = CUBIND_SUCCESS;
  CUcontext current = restore;
  int i;
  for (i = 0; i < ts->num_devices; i++) {
    scratch_arena *a = &ts->arenas[i];
    CUresult r;
    if (!a->base) continue;
    r = switch_to(a->context, &current);
    if (r == CUDA_SUCCESS) r = cubind__drv.cuMemFree(a->base);
    if (r != CUDA_SUCCESS && status == CUBIND_SUCCESS)
      status = cubind__fail_cuda(r, CUBIND_ERROR_CUDA,
                                 "cubind_release_scratch: freeing %zu bytes of scratch on device "
                                 "%d failed",
                                 a->capacity, i);
  }
  if (current != restore) (void)cubind__drv.cuCtxSetCurrent(restore); /* best effort */
  free(ts);
  return status;
}

/* pthread key destructor: a thread's scratch goes away with the thread. */
static void scratch_destructor(void *value) { (void)free_scratch(value, NULL); }

/*
 * At exit: key destructors do not run for the thread that calls exit() (usually main), so its
 * scratch is freed here; otherwise it would outlive the program's last cubind call as a leak
 * (compute-sanitizer's leak check reports it).
 */
static void release_scratch_at_exit(void) { (void)cubind_release_scratch(); }

static void scratch_key_create(void) {
  scratch_key_ok = pthread_key_create(&scratch_key, scratch_destructor) == 0;
  if (scratch_key_ok) (void)atexit(release_scratch_at_exit);
}

/* The calling thread's arena on `device`, its device memory at least `bytes` large. */
static cubind_status scratch(const char *what, int device, CUcontext ctx, size_t bytes,
                             scratch_arena **arena) {
  thread_scratch *ts;
  scratch_arena *a;
  size_t capacity;
  CUresult r;
  pthread_once(&scratch_key_once, scratch_key_create);
  if (!scratch_key_ok)
    return cubind__fail(CUBIND_ERROR_OUT_OF_MEMORY, "%s: cannot create a thread key", what);
  ts = pthread_getspecific(scratch_key);
  if (!ts) {
    int n = cubind__device_count();
    ts = calloc(1, sizeof *ts + (size_t)n * sizeof ts->arenas[0]);
    if (!ts) return cubind__fail(CUBIND_ERROR_OUT_OF_MEMORY, "%s: out of host memory", what);
    ts->num_devices = n;
    if (pthread_setspecific(scratch_key, ts) != 0) {
      free(ts);
      return cubind__fail(CUBIND_ERROR_OUT_OF_MEMORY, "%s: cannot set thread data", what);
    }
  }
  a = &ts->arenas[device];
  *arena = a;
  if (a->capacity >= bytes && a->context == ctx) return CUBIND_SUCCESS;
  /* Grow geometrically so that slowly growing calls do not reallocate every time. */
  capacity = a->capacity + a->capacity / 2 > bytes ? a->capacity + a->capacity / 2 : bytes;
  if (a->base) { /* too small: replace it (idle: every _call synchronises before returning) */
    r = cubind__drv.cuMemFree(a->base);
    if (r != CUDA_SUCCESS) /* keep it: the thread-exit destructor tries again */
      return cubind__fail_cuda(r, CUBIND_ERROR_CUDA, "%s: cuMemFree of the old scratch failed",
                               what);
    a->base = 0;
    a->capacity = 0;
  }
  r = cubind__drv.cuMemAlloc(&a->base, capacity);
  if (r != CUDA_SUCCESS) {
    a->base = 0;
    return cubind__fail_cuda(r, CUBIND_ERROR_OUT_OF_MEMORY,
                             "%s: cuMemAlloc of %zu bytes of device scratch failed", what,
                             capacity);
  }
  a->capacity = capacity;
  a->context = ctx;
  return CUBIND_SUCCESS;
}

/* 1 if `host` is to be registered for the call: large enough, pageable, and staging on. */
static int wants_register(const void *host, size_t bytes) {
  CUpointer_attribute attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
  unsigned type = 0; /* CUmemorytype; 0 for memory the driver does not know (pageable) */
  void *data = &type;
  pthread_once(&staging_once, staging_read_env);
  if (!staging_on || bytes < staging_min || !cubind__drv.cuPointerGetAttributes ||
      !cubind__drv.cuMemHostRegister || !cubind__drv.cuMemHostUnregister)
    return 0;
  if (cubind__drv.cuPointerGetAttributes(1, &attribute, &data,
                                         (CUdeviceptr)(uintptr_t)host) != CUDA_SUCCESS)
    return 0; /* unknown: let the driver decide */
  return type == 0;
}

/* Names a host argument's parameter: "parameter 0 'a'". */
static const char *param_name(const cubind_module *module, unsigned kernel_index, unsigned i) {
  const cubind_kernel_info *kernel = &module->kernels[kernel_index];
  return i < kernel->num_params && kernel->params ? kernel->params[i].name : "?";
}

cubind_status cubind_module_call(cubind_module *module, unsigned kernel_index,
                                 const cubind_config *cfg, void **args,
                                 const cubind_host_arg *host_args, unsigned num_host_args) {
  const cubind__kernel_slot *k = NULL;
  scratch_arena *arena = NULL;
  unsigned long long registered = 0; /* bit i: host argument i is registered for this call */
  CUdeviceptr base = 0;
  size_t total = 0, offsets_end;
  unsigned i;
  int device = 0;
  CUresult r;
  char what[512];
  cubind_status status = check_arguments("call", module, kernel_index, cfg, args);
  if (status != CUBIND_SUCCESS) return status;
  if (!host_args && num_host_args > 0)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "cubind_module_call: host_args is NULL");
  describe(what, sizeof what, "call", module, kernel_index, cfg);

  /* Validate every host argument and size the arena before anything runs. */
  for (i = 0; i < num_host_args; i++) {
    const cubind_host_arg *h = &host_args[i];
    size_t bytes;
    if (h->param_index >= module->kernels[kernel_index].num_params)
      return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                          "%s: host argument %u names parameter %u; the kernel has %u", what, i,
                          h->param_index, module->kernels[kernel_index].num_params);
    if (h->count != 0 && h->elem_size > SIZE_MAX / h->count)
      return cubind__fail(CUBIND_ERROR_SIZE_OVERFLOW,
                          "%s: parameter %u '%s': %zu elements of %zu bytes overflow size_t", what,
                          h->param_index, param_name(module, kernel_index, h->param_index),
                          h->count, h->elem_size);
    bytes = h->count * h->elem_size;
    if (bytes != 0 && !h->host)
      return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                          "%s: parameter %u '%s': the host buffer is NULL but holds %zu elements",
                          what, h->param_index, param_name(module, kernel_index, h->param_index),
                          h->count);
    if (bytes > SIZE_MAX - total - (SCRATCH_ALIGNMENT - 1))
      return cubind__fail(CUBIND_ERROR_SIZE_OVERFLOW, "%s: the host buffers together exceed size_t",
                          what);
    total += (bytes + SCRATCH_ALIGNMENT - 1) & ~(size_t)(SCRATCH_ALIGNMENT - 1);
  }

  status = resolve("call", module, kernel_index, cfg, &k, &device);
  if (status == CUBIND_SUCCESS && total > 0)
    status = scratch(what, device, k->context, total, &arena);
  if (status != CUBIND_SUCCESS) return status;
  base = arena ? arena->base : 0;

  /* Page-lock large pageable buffers in place for the call. */
  for (i = 0; i < num_host_args && i < MAX_REGISTERED; i++) {
    const cubind_host_arg *h = &host_args[i];
    size_t bytes = h->count * h->elem_size;
    if (bytes && (h->direction & CUBIND_DIRECTION_INOUT) && wants_register(h->host, bytes) &&
        cubind__drv.cuMemHostRegister(h->host, bytes, 0) == CUDA_SUCCESS)
      registered |= 1ull << i; /* else: copied plainly */
  }

  /* Copy in, and point each annotated parameter at its part of the arena. */
  offsets_end = 0;
  for (i = 0; i < num_host_args; i++) {
    const cubind_host_arg *h = &host_args[i];
    size_t bytes = h->count * h->elem_size;
    CUdeviceptr dev = bytes ? base + offsets_end : 0;
    if (bytes && (h->direction & CUBIND_DIRECTION_IN)) {
      r = cubind__drv.cuMemcpyHtoDAsync(dev, h->host, bytes, cfg->stream);
      if (r != CUDA_SUCCESS) {
        (void)cubind__drv.cuStreamSynchronize(cfg->stream); /* let earlier copies finish */
        status = cubind__fail_cuda(r, CUBIND_ERROR_MEMCPY,
                                   "%s: copying parameter %u '%s' (%zu bytes) to the device: "
                                   "cuMemcpyHtoDAsync failed",
                                   what, h->param_index,
                                   param_name(module, kernel_index, h->param_index), bytes);
        goto finish;
      }
    }
    *(void **)args[h->param_index] = (void *)(uintptr_t)dev;
    offsets_end += (bytes + SCRATCH_ALIGNMENT - 1) & ~(size_t)(SCRATCH_ALIGNMENT - 1);
  }

  status = launch("call", module, kernel_index, cfg, args);
  if (status != CUBIND_SUCCESS) {
    (void)cubind__drv.cuStreamSynchronize(cfg->stream); /* the copies in must not outlive us */
    goto finish;
  }

  offsets_end = 0;
  for (i = 0; i < num_host_args; i++) {
    const cubind_host_arg *h = &host_args[i];
    size_t bytes = h->count * h->elem_size;
    if (bytes && (h->direction & CUBIND_DIRECTION_OUT)) {
      r = cubind__drv.cuMemcpyDtoHAsync(h->host, base + offsets_end, bytes, cfg->stream);
      if (r != CUDA_SUCCESS) {
        (void)cubind__drv.cuStreamSynchronize(cfg->stream);
        status = cubind__fail_cuda(r, CUBIND_ERROR_MEMCPY,
                                   "%s: copying parameter %u '%s' (%zu bytes) back to the host: "
                                   "cuMemcpyDtoHAsync failed",
                                   what, h->param_index,
                                   param_name(module, kernel_index, h->param_index), bytes);
        goto finish;
      }
    }
    offsets_end += (bytes + SCRATCH_ALIGNMENT - 1) & ~(size_t)(SCRATCH_ALIGNMENT - 1);
  }
  r = cubind__drv.cuStreamSynchronize(cfg->stream);
  if (r != CUDA_SUCCESS)
    status = cubind__fail_cuda(r, CUBIND_ERROR_STREAM, "%s: cuStreamSynchronize failed", what);

finish:
  /* Every path here has synchronised the stream: no copy uses a registered buffer any more. */
  for (i = 0; registered && i < num_host_args && i < MAX_REGISTERED; i++)
    if (registered >> i & 1) {
      const cubind_host_arg *h = &host_args[i];
      r = cubind__drv.cuMemHostUnregister(h->host);
      if (r != CUDA_SUCCESS && status == CUBIND_SUCCESS)
        status = cubind__fail_cuda(r, CUBIND_ERROR_CUDA,
                                   "%s: cuMemHostUnregister of parameter %u '%s' failed", what,
                                   h->param_index,
                                   param_name(module, kernel_index, h->param_index));
    }
  return status;
}

cubind_status cubind_release_scratch(void) {
  thread_scratch *ts;
  CUcontext current = NULL;
  CUresult r;
  pthread_once(&scratch_key_once, scratch_key_create);
  if (!scratch_key_ok || !(ts = pthread_getspecific(scratch_key))) return CUBIND_SUCCESS;
  (void)pthread_setspecific(scratch_key, NULL);
  r = cubind__drv.cuCtxGetCurrent(&current);
  if (r != CUDA_SUCCESS) current = NULL; /* still free everything; restore nothing */
  return free_scratch(ts, current);
}

cubind_config cubind_config_1d(size_t n, unsigned block) {
  cubind_config cfg = {{1, 1, 1}, {1, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  size_t blocks = block ? n / block + (n % block != 0) : 1;
  cfg.block.x = block;
  /* Larger than any device's grid: keep it out of range instead of wrapping to a small value. */
  cfg.grid.x = blocks == 0 ? 1 : blocks > 0xFFFFFFFFu ? 0xFFFFFFFFu : (unsigned)blocks;
  return cfg;
}
