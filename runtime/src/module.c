/*
 * module.c: the registry of generated modules and their lazy loading: the module once per device
 * at its first use there, each kernel at its own first launch there.
 *
 * Each module's runtime state (module->state) is allocated on first use: a mutex plus one slot
 * per device and one kernel slot per kernel and device. Both are filled under the module's mutex.
 * A device slot is committed with a release store of slot->loaded; a kernel slot is published
 * after that with a release store of its function handle, which launches read with an acquire
 * load: after a kernel's first launch on a device, launching it takes no lock and allocates
 * nothing. Resolving kernels one by one keeps the driver's own lazy loading (CUDA_MODULE_LOADING
 * =LAZY) working: a module of 2000 kernels costs what the kernels actually launched cost.
 * Loaded code stays loaded until the process exits.
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define FATBIN_MAGIC 0xBA55ED50u

/* The registry: a lock-free push list, walked by cubind_preload. */
static cubind_module *registry;

void cubind_module_register(cubind_module *module) {
  cubind_module *head, *m;
  if (!module) return;
  head = __atomic_load_n(&registry, __ATOMIC_ACQUIRE);
  do {
    /* Registering twice would make a cycle; entries are never removed, so the walk is safe. */
    for (m = head; m; m = m->next)
      if (m == module) return;
    module->next = head;
  } while (!__atomic_compare_exchange_n(&registry, &head, module, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_ACQUIRE));
}

/* ---- fatbin inspection (for the "no code for this GPU" message) ---------------------------- */

static uint64_t read_le(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  int i;
  for (i = bytes - 1; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

void cubind__fatbin_archs(const unsigned char *image, size_t size, char *buf, size_t buf_size) {
  /*
   * A fatbin is one or more containers: a 16-byte header {u32 magic 0xBA55ED50, u16 version,
   * u16 header size, u64 payload size} followed by entries, each {u16 kind (1 PTX, 2 cubin),
   * u16 version, u32 header size, u64 payload size, ..., u32 sm arch at offset 28, ...}.
   * Every size is checked against `size` before it is used.
   */
  size_t pos = 0, used = 0;
  int found = 0;
  buf[0] = '\0';
  while (image && size - pos >= 16 && read_le(image + pos, 4) == FATBIN_MAGIC) {
    uint64_t header = read_le(image + pos + 6, 2), payload = read_le(image + pos + 8, 8);
    size_t end, entry;
    if (header < 16 || header > size - pos) break;
    end = payload > size - pos - header ? size : pos + (size_t)header + (size_t)payload;
    for (entry = pos + (size_t)header; end - entry >= 32;) {
      unsigned kind = (unsigned)read_le(image + entry, 2);
      uint64_t entry_header = read_le(image + entry + 4, 4);
      uint64_t entry_size = read_le(image + entry + 8, 8);
      unsigned arch = (unsigned)read_le(image + entry + 28, 4);
      if (entry_header < 32 || entry_header > end - entry) break;
      if (used < buf_size) {
        int n = snprintf(buf + used, buf_size - used, "%ssm_%u (%s)", found ? ", " : "", arch,
                         kind == 1   ? "PTX"
                         : kind == 2 ? "cubin"
                                     : "unknown kind");
        used += n > 0 ? (size_t)n : 0;
      }
      found = 1;
      if (entry_size > end - entry - entry_header) break;
      entry += (size_t)entry_header + (size_t)entry_size;
    }
    if (end <= pos) break;
    pos = end;
  }
  if (!found) snprintf(buf, buf_size, "no recognisable architectures (not a fatbin?)");
}

/* ---- per-module state ---------------------------------------------------------------------- */

/* The module's state, created (once, by whichever thread wins the race) if needed. */
static cubind_status get_state(const char *what, cubind_module *module,
                               cubind__module_state **out) {
  cubind__module_state *state =
      __atomic_load_n((cubind__module_state **)&module->state, __ATOMIC_ACQUIRE);
  cubind__module_state *expected = NULL;
  int n = cubind__device_count();
  size_t head, bytes;
  void *memory = NULL;

  if (state) {
    *out = state;
    return CUBIND_SUCCESS;
  }
  /* The kernel slots start on a cache line of their own: one line per kernel and device. */
  head = sizeof *state + (size_t)n * sizeof state->slots[0];
  head = (head + sizeof(cubind__kernel_slot) - 1) & ~(sizeof(cubind__kernel_slot) - 1);
  bytes = head + (size_t)n * module->num_kernels * sizeof(cubind__kernel_slot) +
          (size_t)n * module->num_globals * sizeof(cubind__global_slot);
  if (posix_memalign(&memory, sizeof(cubind__kernel_slot), bytes) != 0)
    return cubind__fail(CUBIND_ERROR_OUT_OF_MEMORY, "%s: out of host memory", what);
  memset(memory, 0, bytes);
  state = memory;
  if (pthread_mutex_init(&state->lock, NULL) != 0) {
    free(state);
    return cubind__fail(CUBIND_ERROR_OUT_OF_MEMORY, "%s: cannot create a mutex", what);
  }
  state->num_devices = n;
  state->kernels = (cubind__kernel_slot *)((char *)memory + head);
  state->globals = (cubind__global_slot *)(state->kernels + (size_t)n * module->num_kernels);
  if (!__atomic_compare_exchange_n((cubind__module_state **)&module->state, &expected, state, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    pthread_mutex_destroy(&state->lock); /* another thread won: use its state */
    free(state);
    state = expected;
  }
  *out = state;
  return CUBIND_SUCCESS;
}

/* ---- loading ------------------------------------------------------------------------------- */

/* Reads one device attribute, reporting a failure against the module being loaded. */
static cubind_status device_attribute(const char *what, const cubind_module *module, int device,
                                      CUdevice_attribute attribute, const char *attribute_name,
                                      int *value) {
  CUdevice dev;
  CUresult r = cubind__drv.cuDeviceGet(&dev, device);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_MODULE_LOAD,
                             "%s: loading module %s on device %d: cuDeviceGet failed", what,
                             module->name, device);
  r = cubind__drv.cuDeviceGetAttribute(value, attribute, dev);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_MODULE_LOAD,
                             "%s: loading module %s on device %d: cuDeviceGetAttribute(%s) failed",
                             what, module->name, device, attribute_name);
  return CUBIND_SUCCESS;
}

/* The failure of the call that loads the image; names architectures for NO_BINARY_FOR_GPU. */
static cubind_status image_failure(const char *what, const cubind_module *module, int device,
                                   const char *call, CUresult r) {
  char archs[256];
  int major = 0, minor = 0;
  CUdevice dev;
  if (r != CUDA_ERROR_NO_BINARY_FOR_GPU)
    return cubind__fail_cuda(r, CUBIND_ERROR_MODULE_LOAD,
                             "%s: %s failed loading module %s on device %d", what, call,
                             module->name, device);
  cubind__fatbin_archs(module->image, *module->image_size, archs, sizeof archs);
  /* Best effort: the message is still useful if the capability cannot be read. */
  if (cubind__drv.cuDeviceGet(&dev, device) != CUDA_SUCCESS ||
      cubind__drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) !=
          CUDA_SUCCESS ||
      cubind__drv.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) !=
          CUDA_SUCCESS)
    major = minor = 0;
  return cubind__fail_cuda(r, CUBIND_ERROR_MODULE_LOAD,
                           "%s: %s failed: module %s has no code for device %d (sm_%d%d); its "
                           "fatbin holds %s; rebuild it for this architecture (add_gpu_kernels "
                           "ARCHS %d%d, or PTX)",
                           what, call, module->name, device, major, minor, archs, major, minor);
}

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
    if (offset != p->offset || size != p->size)
      return cubind__fail(CUBIND_ERROR_ABI_MISMATCH,
                          "%s: kernel '%s' (module %s): parameter %u '%s' is laid out at offset "
                          "%u, %u bytes by the generated stub but at offset %zu, %zu bytes in "
                          "the compiled kernel; regenerate the bindings from the source the "
                          "fatbin was built from",
                          what, kernel->name, module->name, i, p->name, p->offset, p->size, offset,
                          size);
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
 * Resolves kernel `index` of the module loaded in `slot` (module mutex held; the slot's context
 * current) into *k: its function handle, the ABI check, its limits. Publishes nothing.
 */
static cubind_status resolve_kernel(const char *what, const cubind_module *module, int device,
                                    const cubind__device_slot *slot, unsigned index,
                                    cubind__kernel_slot *k) {
  const cubind_kernel_info *kernel = &module->kernels[index];
  cubind_status status = CUBIND_SUCCESS;
  const char *call;
  CUresult r;
  k->function = NULL;
  if (slot->library) {
    CUkernel handle;
    call = "cuLibraryGetKernel";
    r = cubind__drv.cuLibraryGetKernel(&handle, slot->library, kernel->symbol);
    if (r == CUDA_SUCCESS) {
      call = "cuKernelGetFunction";
      r = cubind__drv.cuKernelGetFunction(&k->function, handle);
    }
  } else {
    call = "cuModuleGetFunction";
    r = cubind__drv.cuModuleGetFunction(&k->function, slot->cumodule, kernel->symbol);
  }
  if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) /* lazy loading reports it here */
    return image_failure(what, module, device, call, r);
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

/* Makes a resolved kernel visible to launches (module mutex held; the slot committed). */
static void publish_kernel(cubind__kernel_slot *dst, const cubind__device_slot *slot,
                           const cubind__kernel_slot *k) {
  int i;
  dst->context = slot->context;
  for (i = 0; i < 3; i++) {
    dst->max_block[i] = slot->max_block[i];
    dst->max_grid[i] = slot->max_grid[i];
  }
  dst->max_threads = k->max_threads;
  dst->max_dynamic_shared = k->max_dynamic_shared;
  for (i = 0; i < 3; i++)
    dst->cluster_required[i] = k->cluster_required[i];
  __atomic_store_n(&dst->function, k->function, __ATOMIC_RELEASE);
}

/* Unloads what load_on_device loaded; its own failure would hide the first one: unreported. */
static void unload(cubind__device_slot *slot) {
  if (slot->library) (void)cubind__drv.cuLibraryUnload(slot->library);
  if (slot->cumodule) (void)cubind__drv.cuModuleUnload(slot->cumodule);
  slot->library = NULL;
  slot->cumodule = NULL;
}

/*
 * Loads the image on `device` and reads the device limits into the slot, without committing it
 * (module mutex held; ctx current). Resolves no kernel.
 */
static cubind_status load_on_device(const char *what, cubind_module *module, int device,
                                    CUcontext ctx, cubind__device_slot *slot) {
  static const struct {
    CUdevice_attribute attribute;
    const char *name;
  } limits[6] = {
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "MAX_BLOCK_DIM_X"},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "MAX_BLOCK_DIM_Y"},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, "MAX_BLOCK_DIM_Z"},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "MAX_GRID_DIM_X"},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "MAX_GRID_DIM_Y"},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "MAX_GRID_DIM_Z"},
  };
  cubind_status status = CUBIND_SUCCESS;
  CUlibrary library = NULL;
  CUmodule cumodule = NULL;
  int values[6], optin_shared = 0;
  unsigned i;
  CUresult r;

  if (cubind__drv.cuLibraryLoadData) {
    r = cubind__drv.cuLibraryLoadData(&library, module->image, NULL, NULL, 0, NULL, NULL, 0);
    if (r != CUDA_SUCCESS) return image_failure(what, module, device, "cuLibraryLoadData", r);
  } else {
    r = cubind__drv.cuModuleLoadData(&cumodule, module->image);
    if (r != CUDA_SUCCESS) return image_failure(what, module, device, "cuModuleLoadData", r);
  }
  slot->library = library;
  slot->cumodule = cumodule;

  for (i = 0; i < 6 && status == CUBIND_SUCCESS; i++)
    status =
        device_attribute(what, module, device, limits[i].attribute, limits[i].name, &values[i]);
  if (status == CUBIND_SUCCESS)
    status = device_attribute(what, module, device,
                              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                              "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", &optin_shared);
  if (status != CUBIND_SUCCESS) {
    unload(slot);
    return status;
  }
  for (i = 0; i < 3; i++) {
    slot->max_block[i] = (unsigned)values[i];
    slot->max_grid[i] = (unsigned)values[3 + i];
  }
  slot->optin_shared = optin_shared;
  slot->context = ctx;
  return CUBIND_SUCCESS;
}

/* Resolves and publishes kernel `index` unless it already is (module mutex held; committed). */
static cubind_status ensure_kernel(const char *what, cubind_module *module, int device,
                                   cubind__device_slot *slot, cubind__kernel_slot *dst,
                                   unsigned index) {
  cubind__kernel_slot k;
  cubind_status status;
  if (__atomic_load_n(&dst->function, __ATOMIC_ACQUIRE)) return CUBIND_SUCCESS;
  status = resolve_kernel(what, module, device, slot, index, &k);
  if (status == CUBIND_SUCCESS) publish_kernel(dst, slot, &k);
  return status;
}

/* Loads the module on the device and resolves its first wanted kernel (module mutex held). */
static cubind_status first_load(const char *what, cubind_module *module, int device, CUcontext ctx,
                                cubind__device_slot *slot, cubind__kernel_slot *kernels,
                                unsigned first) {
  cubind__kernel_slot k;
  cubind_status status = load_on_device(what, module, device, ctx, slot);
  if (status != CUBIND_SUCCESS) return status;
  if (first < module->num_kernels) {
    status = resolve_kernel(what, module, device, slot, first, &k);
    if (status != CUBIND_SUCCESS) { /* nothing stays loaded after a failed first launch */
      unload(slot);
      return status;
    }
  }
  __atomic_store_n(&slot->loaded, 1, __ATOMIC_RELEASE); /* commit, then publish the kernel */
  if (first < module->num_kernels) publish_kernel(&kernels[first], slot, &k);
  return CUBIND_SUCCESS;
}

cubind_status cubind__module_slot(const char *what, cubind_module *module, CUcontext ctx,
                                  int device, unsigned kernel_index,
                                  const cubind__kernel_slot **out) {
  cubind__module_state *state = NULL;
  cubind__kernel_slot *kernels;
  cubind__device_slot *slot;
  cubind_status status;
  unsigned i;

  if (module->abi_version != CUBIND_ABI_VERSION)
    return cubind__fail(CUBIND_ERROR_VERSION_MISMATCH,
                        "%s: module %s was generated for cubind ABI %u but this runtime has ABI "
                        "%d; regenerate it with this cubind's cubind-gen",
                        what, module->name, module->abi_version, CUBIND_ABI_VERSION);
  if (kernel_index < module->num_kernels) { /* resolved already (a thread's first launch) */
    const cubind__kernel_slot *k = cubind__fast_kernel(module, device, kernel_index);
    if (k && k->context == ctx) {
      if (out) *out = k;
      return CUBIND_SUCCESS;
    }
  }
  status = get_state(what, module, &state);
  if (status != CUBIND_SUCCESS) return status;
  slot = &state->slots[device];
  kernels = &state->kernels[(size_t)device * module->num_kernels];
  pthread_mutex_lock(&state->lock);
  if (!__atomic_load_n(&slot->loaded, __ATOMIC_ACQUIRE))
    status = first_load(what, module, device, ctx, slot, kernels,
                        kernel_index == CUBIND__ALL_KERNELS ? 0 : kernel_index);
  /* (CUBIND__NO_KERNEL >= num_kernels: first_load resolves nothing) */
  if (status == CUBIND_SUCCESS && slot->context != ctx)
    status = cubind__fail(CUBIND_ERROR_CONTEXT,
                          "%s: module %s was loaded on device %d in another context than the "
                          "calling thread's current one; cubind uses one context per device (the "
                          "primary one, or the first one it is used in)",
                          what, module->name, device);
  if (status == CUBIND_SUCCESS && kernel_index < module->num_kernels)
    status = ensure_kernel(what, module, device, slot, &kernels[kernel_index], kernel_index);
  for (i = 0; status == CUBIND_SUCCESS && kernel_index == CUBIND__ALL_KERNELS &&
              i < module->num_kernels;
       i++)
    status = ensure_kernel(what, module, device, slot, &kernels[i], i);
  pthread_mutex_unlock(&state->lock);
  if (status == CUBIND_SUCCESS && out && kernel_index < module->num_kernels)
    *out = &kernels[kernel_index];
  return status;
}

cubind_status cubind_preload(void) {
  cubind_module *module;
  cubind_status status = cubind__driver_ready("cubind_preload");
  CUcontext ctx;
  int device;
  char what[256];

  if (status != CUBIND_SUCCESS) return status;
  status = cubind__thread_context("cubind_preload", &ctx, &device);
  if (status != CUBIND_SUCCESS) return status;
  for (module = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); module; module = module->next) {
    snprintf(what, sizeof what, "cubind_preload (module %s)", module->name);
    status = cubind__module_slot(what, module, ctx, device, CUBIND__ALL_KERNELS, NULL);
    if (status != CUBIND_SUCCESS) return status;
  }
  return CUBIND_SUCCESS;
}

/* ---- __constant__ / __device__ variables --------------------------------------------------- */

/* Looks variable `index` up on the device (module loaded there, its mutex held). */
static cubind_status lookup_global(const char *what, const cubind_module *module, int device,
                                   const cubind__device_slot *slot, unsigned index,
                                   cubind__global_slot *g) {
  const cubind_global_info *info = &module->globals[index];
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  const char *call;
  CUresult r;
  if (slot->library ? !cubind__drv.cuLibraryGetGlobal : !cubind__drv.cuModuleGetGlobal)
    return cubind__fail(CUBIND_ERROR_DRIVER_TOO_OLD,
                        "%s: the CUDA driver has no %s", what,
                        slot->library ? "cuLibraryGetGlobal" : "cuModuleGetGlobal");
  if (slot->library) {
    call = "cuLibraryGetGlobal";
    r = cubind__drv.cuLibraryGetGlobal(&ptr, &bytes, slot->library, info->symbol);
  } else {
    call = "cuModuleGetGlobal";
    r = cubind__drv.cuModuleGetGlobal(&ptr, &bytes, slot->cumodule, info->symbol);
  }
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

cubind_status cubind_module_global_copy(cubind_module *module, unsigned global_index, void *host,
                                        size_t count, size_t elem_size,
                                        cubind_copy_direction direction) {
  const cubind_global_info *info;
  cubind__module_state *state;
  cubind__global_slot *g;
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
  if (elem_size && count > (size_t)-1 / elem_size)
    return cubind__fail(CUBIND_ERROR_SIZE_OVERFLOW,
                        "%s: %zu elements of %zu bytes overflow size_t", what, count, elem_size);
  bytes = count * elem_size;
  if (bytes && !host)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "%s: the host buffer is NULL", what);
  status = cubind__driver_ready(what);
  if (status == CUBIND_SUCCESS) status = cubind__thread_context(what, &ctx, &device);
  if (status != CUBIND_SUCCESS) return status;

  state = __atomic_load_n((cubind__module_state **)&module->state, __ATOMIC_ACQUIRE);
  g = state ? &state->globals[(size_t)device * module->num_globals + global_index] : NULL;
  if (!g || !__atomic_load_n(&g->ptr, __ATOMIC_ACQUIRE) || g->context != ctx) {
    /* first use on this device: load the module (no kernel), then look the variable up */
    status = cubind__module_slot(what, module, ctx, device, CUBIND__NO_KERNEL, NULL);
    if (status != CUBIND_SUCCESS) return status;
    state = __atomic_load_n((cubind__module_state **)&module->state, __ATOMIC_ACQUIRE);
    g = &state->globals[(size_t)device * module->num_globals + global_index];
    pthread_mutex_lock(&state->lock);
    if (!__atomic_load_n(&g->ptr, __ATOMIC_ACQUIRE))
      status = lookup_global(what, module, device, &state->slots[device], global_index, g);
    pthread_mutex_unlock(&state->lock);
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

/* ---- per-kernel facts ----------------------------------------------------------------------- */

/* The kernel's slot on the calling thread's device (resolving it if needed). */
static cubind_status kernel_for_query(const char *what, cubind_module *module,
                                      unsigned kernel_index, const cubind__kernel_slot **k) {
  cubind_status status;
  CUcontext ctx;
  int device;
  if (!module || kernel_index >= module->num_kernels)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "%s: no such kernel", what);
  status = cubind__driver_ready(what);
  if (status == CUBIND_SUCCESS) status = cubind__thread_context(what, &ctx, &device);
  if (status == CUBIND_SUCCESS)
    status = cubind__module_slot(what, module, ctx, device, kernel_index, k);
  return status;
}

cubind_status cubind_module_kernel_attributes(cubind_module *module, unsigned kernel_index,
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

cubind_status cubind_module_config_occupancy(cubind_module *module, unsigned kernel_index,
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
