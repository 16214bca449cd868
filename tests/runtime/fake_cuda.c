/*
 * fake_cuda.c: a stand-in CUDA driver for the runtime tests (see fake_cuda.h).
 * It exports only cuGetProcAddress_v2 / cuGetProcAddress and the fake_cuda_* control API; the
 * entry points themselves are handed out by name, as the real driver does. It implements every
 * entry point of the runtime's list (runtime/src/driver_api.h): one that the runtime adds and
 * the fake lacks fails to compile here (fake_<name> undeclared).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cubind_fatbin_format.h"
#include "driver_api.h" /* the runtime's list of entry points */
#include "fake_cuda.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVICES 8
#define FAKE_SMS 108 /* multiprocessors per device */

/* ---- call counting and failure injection --------------------------------------------------- */

/* The entry points the fake hands out: the runtime's own list (driver_api.h), one table. */
static const char *const function_names[] = {
#define FAKE_NAME_(name, version) #name,
    CUBIND_DRIVER_API(FAKE_NAME_, FAKE_NAME_)
#undef FAKE_NAME_
};
#define NUM_FUNCTIONS (sizeof function_names / sizeof function_names[0])

static unsigned long calls[NUM_FUNCTIONS];
static pthread_mutex_t rule_lock = PTHREAD_MUTEX_INITIALIZER;
static int rule_armed; /* atomic: a rule is set */
static struct {
  char function[64];       /* "" = any */
  unsigned long remaining; /* calls to let through before failing */
  CUresult result;
  int always;
} rule;

static int function_index(const char *name) {
  size_t i;
  for (i = 0; i < NUM_FUNCTIONS; i++)
    if (strcmp(function_names[i], name) == 0) return (int)i;
  return -1;
}

static char hook_function[64];   /* fake_cuda_on_call: single-threaded tests */
static void (*hook)(void *), *hook_data;

EXPORT void fake_cuda_on_call(const char *function, void (*run)(void *), void *data) {
  strncpy(hook_function, function, sizeof hook_function - 1);
  hook_data = data;
  hook = run;
}

/* Counts a call to `name` and returns the injected failure, if this call is the chosen one. */
static CUresult enter(const char *name) {
  CUresult result = CUDA_SUCCESS;
  int i = function_index(name);
  if (i >= 0) __atomic_add_fetch(&calls[i], 1, __ATOMIC_RELAXED);
  if (hook && strcmp(hook_function, name) == 0) {
    void (*run)(void *) = hook;
    hook = NULL;
    run(hook_data);
  }
  if (!__atomic_load_n(&rule_armed, __ATOMIC_ACQUIRE)) return CUDA_SUCCESS;
  pthread_mutex_lock(&rule_lock);
  if (rule_armed && (rule.function[0] == '\0' || strcmp(rule.function, name) == 0)) {
    if (rule.remaining > 0) {
      rule.remaining--;
    } else {
      result = rule.result;
      if (!rule.always) __atomic_store_n(&rule_armed, 0, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&rule_lock);
  return result;
}

#define ENTER(name)                                                                                \
  do {                                                                                             \
    CUresult injected_ = enter(name);                                                              \
    if (injected_ != CUDA_SUCCESS) return injected_;                                               \
  } while (0)

EXPORT void fake_cuda_reset(void) {
  size_t i;
  pthread_mutex_lock(&rule_lock);
  __atomic_store_n(&rule_armed, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&rule_lock);
  for (i = 0; i < NUM_FUNCTIONS; i++)
    __atomic_store_n(&calls[i], 0, __ATOMIC_RELAXED);
}

EXPORT void fake_cuda_fail(const char *function, unsigned nth, CUresult result, int always) {
  pthread_mutex_lock(&rule_lock);
  strncpy(rule.function, function ? function : "", sizeof rule.function - 1);
  rule.remaining = nth > 0 ? nth - 1 : 0;
  rule.result = result;
  rule.always = always;
  __atomic_store_n(&rule_armed, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&rule_lock);
}

EXPORT unsigned long fake_cuda_calls(const char *function) {
  int i = function_index(function);
  return i < 0 ? 0 : __atomic_load_n(&calls[i], __ATOMIC_RELAXED);
}

/* ---- devices and contexts ------------------------------------------------------------------ */

typedef struct fake_context {
  int device;
} fake_context;

static void flush_all(void); /* deferred async copies (below) */

static fake_context primary_contexts[MAX_DEVICES], user_contexts[MAX_DEVICES];
static __thread fake_context *current;
static int num_devices = 1;
static int cc_major = 8, cc_minor = 0;
static unsigned long loads[MAX_DEVICES];
static long live_device, live_host, live_streams, live_events, live_images;

EXPORT unsigned long fake_cuda_loads(int device) {
  return device >= 0 && device < MAX_DEVICES ? __atomic_load_n(&loads[device], __ATOMIC_RELAXED)
                                             : 0;
}
EXPORT long fake_cuda_live_device_allocations(void) {
  return __atomic_load_n(&live_device, __ATOMIC_RELAXED);
}
EXPORT long fake_cuda_live_host_allocations(void) {
  return __atomic_load_n(&live_host, __ATOMIC_RELAXED);
}
EXPORT long fake_cuda_live_streams(void) {
  return __atomic_load_n(&live_streams, __ATOMIC_RELAXED);
}
EXPORT long fake_cuda_live_events(void) { return __atomic_load_n(&live_events, __ATOMIC_RELAXED); }
EXPORT long fake_cuda_live_images(void) { return __atomic_load_n(&live_images, __ATOMIC_RELAXED); }
EXPORT void fake_cuda_set_compute_capability(int major, int minor) {
  __atomic_store_n(&cc_major, major, __ATOMIC_RELAXED);
  __atomic_store_n(&cc_minor, minor, __ATOMIC_RELAXED);
}
EXPORT void fake_cuda_make_current(int device) { current = &user_contexts[device]; }

static CUresult fake_cuInit(unsigned flags) {
  const char *env = getenv("FAKE_CUDA_DEVICES"), *stub = getenv("FAKE_CUDA_STUB");
  int i;
  ENTER("cuInit");
  if (stub && strcmp(stub, "init") == 0) return CUDA_ERROR_STUB_LIBRARY;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (env) num_devices = atoi(env) < 1 ? 1 : atoi(env) > MAX_DEVICES ? MAX_DEVICES : atoi(env);
  for (i = 0; i < MAX_DEVICES; i++)
    primary_contexts[i].device = user_contexts[i].device = i;
  return CUDA_SUCCESS;
}

static const struct {
  CUresult result;
  const char *name, *text;
} error_table[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

static CUresult fake_cuGetErrorName(CUresult error, const char **str) {
  size_t i;
  ENTER("cuGetErrorName");
  for (i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
    if (error_table[i].result == error) {
      *str = error_table[i].name;
      return CUDA_SUCCESS;
    }
  *str = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

static CUresult fake_cuGetErrorString(CUresult error, const char **str) {
  size_t i;
  ENTER("cuGetErrorString");
  for (i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
    if (error_table[i].result == error) {
      *str = error_table[i].text;
      return CUDA_SUCCESS;
    }
  *str = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

static CUresult fake_cuDeviceGetCount(int *count) {
  ENTER("cuDeviceGetCount");
  *count = num_devices;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGet(CUdevice *device, int ordinal) {
  ENTER("cuDeviceGet");
  if (ordinal < 0 || ordinal >= num_devices) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice dev) {
  ENTER("cuDeviceGetAttribute");
  if (dev < 0 || dev >= num_devices) return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    *value = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
    *value = 64;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    *value = 2147483647;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
    *value = 65535;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *value = 101376;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = FAKE_SMS;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = __atomic_load_n(&cc_major, __ATOMIC_RELAXED);
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = __atomic_load_n(&cc_minor, __ATOMIC_RELAXED);
    break;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxGetCurrent(CUcontext *ctx) {
  ENTER("cuCtxGetCurrent");
  *ctx = (CUcontext)current;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxSetCurrent(CUcontext ctx) {
  ENTER("cuCtxSetCurrent");
  current = (fake_context *)ctx;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxGetDevice(CUdevice *device) {
  ENTER("cuCtxGetDevice");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  *device = current->device;
  return CUDA_SUCCESS;
}

static CUresult fake_cuCtxSynchronize(void) {
  if (current) flush_all(); /* even when made to fail */
  ENTER("cuCtxSynchronize");
  return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

static CUresult fake_cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
  ENTER("cuDevicePrimaryCtxRetain");
  if (dev < 0 || dev >= num_devices) return CUDA_ERROR_INVALID_DEVICE;
  *ctx = (CUcontext)&primary_contexts[dev];
  return CUDA_SUCCESS;
}

/* ---- images and kernels -------------------------------------------------------------------- */

typedef struct fake_param {
  size_t offset, size;
} fake_param;

typedef struct fake_kernel {
  const char *symbol;
  const fake_param *params;
  size_t num_params;
  int max_threads;
  void (*run)(void **args, unsigned long threads);
} fake_kernel;

/* a[i] *= 2 for i < n (and i < the number of threads launched). */
static void run_doublify(void **args, unsigned long threads) {
  float *a = *(float **)args[0];
  int n = *(int *)args[1], i;
  for (i = 0; i < n && (unsigned long)i < threads; i++)
    a[i] *= 2.0f;
}

static const fake_param pointer_and_int[] = {{0, 8}, {8, 4}};
static const fake_param pointer_and_double[] = {{0, 8}, {8, 8}};
static const fake_kernel kernels[] = {
    {"doublify", pointer_and_int, 2, 1024, run_doublify},
    {"noop", NULL, 0, 1024, NULL},
    {"mismatch", pointer_and_double, 2, 1024, NULL},
    {"small", pointer_and_int, 2, 128, run_doublify},
};

/* A loaded library or module: its device and its own __device__ variable "coeffs". */
typedef struct fake_image {
  int device;
  double coeffs[8];
} fake_image;

static const fake_kernel *find_kernel(const char *symbol) {
  size_t i;
  for (i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
    if (strcmp(kernels[i].symbol, symbol) == 0) return &kernels[i];
  return NULL;
}

static const fake_kernel *as_kernel(const void *handle) {
  const fake_kernel *k = handle;
  return k >= kernels && k < kernels + sizeof kernels / sizeof kernels[0] ? k : NULL;
}

/* Loads an image: it must start like a fatbin; the load is counted against the device. */
static CUresult load_image(const void *code, fake_image **out) {
  if (!code) return CUDA_ERROR_INVALID_VALUE;
  if (!cubind_fatbin_is_fatbin(code, CUBIND_FATBIN_CONTAINER_SIZE))
    return CUDA_ERROR_INVALID_IMAGE;
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  *out = calloc(1, sizeof **out);
  if (!*out) return CUDA_ERROR_OUT_OF_MEMORY;
  (*out)->device = current->device;
  __atomic_add_fetch(&loads[current->device], 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&live_images, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}

static CUresult unload_image(void *image) {
  if (!image) return CUDA_ERROR_INVALID_HANDLE;
  free(image);
  __atomic_sub_fetch(&live_images, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}

static CUresult fake_cuModuleLoadData(CUmodule *module, const void *image) {
  ENTER("cuModuleLoadData");
  return load_image(image, (fake_image **)module);
}

/*
 * The unload call releases the image even when made to fail: the runtime only unloads while
 * reporting another failure and cannot retry, so a leak here would be the fake's, not its own.
 */
static CUresult fake_cuModuleUnload(CUmodule module) {
  CUresult injected = enter("cuModuleUnload"), r = unload_image(module);
  return injected != CUDA_SUCCESS ? injected : r;
}

static CUresult fake_cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  const fake_kernel *k;
  ENTER("cuModuleGetFunction");
  if (!module || !name) return CUDA_ERROR_INVALID_VALUE;
  if (!(k = find_kernel(name))) return CUDA_ERROR_NOT_FOUND;
  *function = (CUfunction)k;
  return CUDA_SUCCESS;
}

static CUresult fake_cuFuncGetAttribute(int *value, CUfunction_attribute attribute, CUfunction f) {
  const fake_kernel *k = as_kernel(f);
  ENTER("cuFuncGetAttribute");
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = k->max_threads;
    break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *value = 1024;
    break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *value = 16;
    break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    *value = 0;
    break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
    *value = 10 * __atomic_load_n(&cc_major, __ATOMIC_RELAXED) +
             __atomic_load_n(&cc_minor, __ATOMIC_RELAXED);
    break;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

/* Occupancy: FAKE_SMS multiprocessors of 2048 threads and 100352 bytes of shared memory each. */
static CUresult fake_cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction f,
                                                                 int block_size, size_t shared) {
  const fake_kernel *k = as_kernel(f);
  int by_threads, by_shared;
  ENTER("cuOccupancyMaxActiveBlocksPerMultiprocessor");
  if (!k || !blocks || block_size <= 0) return CUDA_ERROR_INVALID_VALUE;
  by_threads = 2048 / block_size;
  by_shared = (int)(100352 / (shared + 1024));
  *blocks = block_size > k->max_threads ? 0 : by_threads < by_shared ? by_threads : by_shared;
  return CUDA_SUCCESS;
}

static CUresult fake_cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block, CUfunction f,
                                                      CUoccupancyB2DSize to_shared,
                                                      size_t shared, int limit) {
  const fake_kernel *k = as_kernel(f);
  int size;
  ENTER("cuOccupancyMaxPotentialBlockSize");
  if (!k || !min_grid || !block || to_shared) return CUDA_ERROR_INVALID_VALUE;
  size = limit > 0 && limit < k->max_threads ? limit : k->max_threads;
  if (size > 256) size = 256;
  if (shared + 1024 > 101376) size = 0; /* nothing fits */
  *block = size;
  *min_grid = size ? FAKE_SMS * (2048 / size) : 0;
  return CUDA_SUCCESS;
}

static CUresult fake_cuFuncSetAttribute(CUfunction f, CUfunction_attribute attribute, int value) {
  ENTER("cuFuncSetAttribute");
  if (!as_kernel(f)) return CUDA_ERROR_INVALID_HANDLE;
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 ||
      value > 101376 - 1024)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

static CUresult fake_cuFuncGetParamInfo(CUfunction f, size_t index, size_t *offset, size_t *size) {
  const fake_kernel *k = as_kernel(f);
  ENTER("cuFuncGetParamInfo");
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  if (index >= k->num_params) return CUDA_ERROR_INVALID_VALUE;
  *offset = k->params[index].offset;
  *size = k->params[index].size;
  return CUDA_SUCCESS;
}

static CUresult fake_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                    unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                    CUstream stream, void **params, void **extra) {
  const fake_kernel *k = as_kernel(f);
  unsigned long block = (unsigned long)bx * by * bz;
  (void)stream;
  ENTER("cuLaunchKernel");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (!k) return CUDA_ERROR_INVALID_HANDLE;
  /* The runtime is meant to catch these before the driver sees them. */
  if (!gx || !gy || !gz || !bx || !by || !bz || block > (unsigned long)k->max_threads ||
      shared > 101376 - 1024 || extra || (k->num_params && !params))
    return CUDA_ERROR_INVALID_VALUE;
  flush_all(); /* the kernel runs after the copies queued before it */
  if (k->run) k->run(params, block * gx * gy * gz);
  return CUDA_SUCCESS;
}

/* Cluster and cooperative launches: the attributes must be well formed; then a plain launch. */
static CUresult fake_cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params,
                                      void **extra) {
  unsigned i;
  ENTER("cuLaunchKernelEx");
  if (!config || (config->numAttrs && !config->attrs)) return CUDA_ERROR_INVALID_VALUE;
  for (i = 0; i < config->numAttrs; i++) {
    const CUlaunchAttribute *a = &config->attrs[i];
    if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      if (!a->value.clusterDim.x || !a->value.clusterDim.y || !a->value.clusterDim.z ||
          config->gridDimX % a->value.clusterDim.x || config->gridDimY % a->value.clusterDim.y ||
          config->gridDimZ % a->value.clusterDim.z)
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    } else if (a->id != CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return fake_cuLaunchKernel(f, config->gridDimX, config->gridDimY, config->gridDimZ,
                             config->blockDimX, config->blockDimY, config->blockDimZ,
                             config->sharedMemBytes, config->hStream, params, extra);
}

/* __constant__ / __device__ variables: each image's "coeffs" (8 doubles), nothing else. */
static CUresult find_global(CUdeviceptr *dptr, size_t *bytes, fake_image *image,
                            const char *name) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (!dptr || !name) return CUDA_ERROR_INVALID_VALUE;
  if (strcmp(name, "coeffs") != 0) return CUDA_ERROR_NOT_FOUND;
  *dptr = (CUdeviceptr)(uintptr_t)image->coeffs;
  if (bytes) *bytes = sizeof image->coeffs;
  return CUDA_SUCCESS;
}

static CUresult fake_cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule module,
                                       const char *name) {
  ENTER("cuModuleGetGlobal");
  if (!module) return CUDA_ERROR_INVALID_HANDLE;
  return find_global(dptr, bytes, (fake_image *)module, name);
}

/* ---- page-locked allocations and deferred async copies -------------------------------------- */

#define MAX_PINNED 256
static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  char *p;
  size_t bytes;
} pinned[MAX_PINNED];

static void pinned_add(void *p, size_t bytes) {
  int i;
  pthread_mutex_lock(&pinned_lock);
  for (i = 0; i < MAX_PINNED; i++)
    if (!pinned[i].p) {
      pinned[i].p = p;
      pinned[i].bytes = bytes;
      break;
    }
  pthread_mutex_unlock(&pinned_lock);
}

static void check_unregister(const char *p, size_t bytes); /* below */

static void pinned_remove(void *p) {
  int i;
  pthread_mutex_lock(&pinned_lock);
  for (i = 0; i < MAX_PINNED; i++)
    if (pinned[i].p == p) {
      check_unregister(pinned[i].p, pinned[i].bytes);
      pinned[i].p = NULL;
    }
  pthread_mutex_unlock(&pinned_lock);
}

static int is_pinned(const void *p) {
  int i, found = 0;
  pthread_mutex_lock(&pinned_lock);
  for (i = 0; i < MAX_PINNED; i++)
    if (pinned[i].p && (const char *)p >= pinned[i].p &&
        (const char *)p < pinned[i].p + (pinned[i].bytes ? pinned[i].bytes : 1))
      found = 1;
  pthread_mutex_unlock(&pinned_lock);
  return found;
}

/*
 * Deferred mode (fake_cuda_defer_async_copies): async copies are queued, not done, until an
 * event recorded after them is synchronised, or the stream, context or a launch or synchronous
 * copy is. A source overwritten, or a destination read, before then shows up as wrong data.
 */
#define MAX_QUEUED 64
static int defer_async; /* only for single-threaded tests */
static struct {
  void *dst;
  const void *src;
  size_t bytes;
} queued[MAX_QUEUED];
static unsigned long queue_done, queue_end; /* sequence numbers: [done, end) are pending */

static void flush_until(unsigned long seq) {
  while (queue_done < seq && queue_done < queue_end) {
    unsigned i = (unsigned)(queue_done % MAX_QUEUED);
    memcpy(queued[i].dst, queued[i].src, queued[i].bytes);
    queue_done++;
  }
}
static void flush_all(void) { flush_until(queue_end); }

/* Queued copies reading or writing host memory when it was unregistered under them. */
static unsigned long unregistered_under_copies;
EXPORT unsigned long fake_cuda_unregistered_under_copies(void) { return unregistered_under_copies; }

static void check_unregister(const char *p, size_t bytes) {
  unsigned long seq;
  for (seq = queue_done; seq < queue_end; seq++) {
    unsigned i = (unsigned)(seq % MAX_QUEUED);
    const char *dst = queued[i].dst, *src = queued[i].src;
    if ((dst < p + bytes && p < dst + queued[i].bytes) ||
        (src < p + bytes && p < src + queued[i].bytes))
      unregistered_under_copies++;
  }
}

EXPORT void fake_cuda_defer_async_copies(int on) {
  flush_all();
  defer_async = on;
}

static long live_registered;
EXPORT long fake_cuda_live_registrations(void) {
  return __atomic_load_n(&live_registered, __ATOMIC_RELAXED);
}

static CUresult fake_cuMemHostRegister(void *p, size_t bytes, unsigned flags) {
  ENTER("cuMemHostRegister");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (!p || !bytes || (flags & ~(unsigned)CU_MEMHOSTREGISTER_PORTABLE))
    return CUDA_ERROR_INVALID_VALUE;
  if (is_pinned(p)) return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  pinned_add(p, bytes);
  __atomic_add_fetch(&live_registered, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}

/* Unregisters even when made to fail (as the unload calls do): the caller cannot retry. */
static CUresult fake_cuMemHostUnregister(void *p) {
  CUresult injected = enter("cuMemHostUnregister");
  if (!is_pinned(p)) return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  pinned_remove(p);
  __atomic_sub_fetch(&live_registered, 1, __ATOMIC_RELAXED);
  return injected;
}

static CUresult fake_cuPointerGetAttributes(unsigned n, CUpointer_attribute *attributes,
                                            void **data, CUdeviceptr ptr) {
  unsigned i;
  ENTER("cuPointerGetAttributes");
  for (i = 0; i < n; i++) {
    if (attributes[i] != CU_POINTER_ATTRIBUTE_MEMORY_TYPE) return CUDA_ERROR_INVALID_VALUE;
    /* like the driver: 0 for memory it does not know, no error */
    *(unsigned *)data[i] = is_pinned((const void *)(uintptr_t)ptr) ? CU_MEMORYTYPE_HOST : 0;
  }
  return CUDA_SUCCESS;
}

/* ---- memory -------------------------------------------------------------------------------- */

static CUresult fake_cuMemAlloc(CUdeviceptr *dptr, size_t bytes) {
  void *p;
  ENTER("cuMemAlloc");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (!(p = aligned_alloc(256, (bytes + 255) & ~(size_t)255))) return CUDA_ERROR_OUT_OF_MEMORY;
  __atomic_add_fetch(&live_device, 1, __ATOMIC_RELAXED);
  *dptr = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemFree(CUdeviceptr dptr) {
  ENTER("cuMemFree");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (!dptr) return CUDA_ERROR_INVALID_VALUE;
  free((void *)(uintptr_t)dptr);
  __atomic_sub_fetch(&live_device, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemAllocHost(void **pp, size_t bytes) {
  ENTER("cuMemAllocHost");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (!(*pp = malloc(bytes))) return CUDA_ERROR_OUT_OF_MEMORY;
  pinned_add(*pp, bytes);
  __atomic_add_fetch(&live_host, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemHostAlloc(void **pp, size_t bytes, unsigned flags) {
  ENTER("cuMemHostAlloc");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                          CU_MEMHOSTALLOC_WRITECOMBINED))
    return CUDA_ERROR_INVALID_VALUE;
  if (!(*pp = malloc(bytes))) return CUDA_ERROR_OUT_OF_MEMORY;
  pinned_add(*pp, bytes);
  __atomic_add_fetch(&live_host, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemFreeHost(void *p) {
  ENTER("cuMemFreeHost");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  pinned_remove(p);
  free(p);
  __atomic_sub_fetch(&live_host, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}

static CUresult copy(const char *name, void *dst, const void *src, size_t bytes) {
  ENTER(name);
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (!dst || !src) return CUDA_ERROR_INVALID_VALUE;
  flush_all();
  memcpy(dst, src, bytes);
  return CUDA_SUCCESS;
}

static CUresult copy_async(const char *name, void *dst, const void *src, size_t bytes) {
  unsigned i;
  ENTER(name);
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (!dst || !src) return CUDA_ERROR_INVALID_VALUE;
  if (!defer_async) {
    memcpy(dst, src, bytes);
    return CUDA_SUCCESS;
  }
  if (queue_end - queue_done == MAX_QUEUED) flush_until(queue_done + 1);
  i = (unsigned)(queue_end % MAX_QUEUED);
  queued[i].dst = dst;
  queued[i].src = src;
  queued[i].bytes = bytes;
  queue_end++;
  return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  return copy("cuMemcpyHtoD", (void *)(uintptr_t)dst, src, bytes);
}
static CUresult fake_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  return copy("cuMemcpyDtoH", dst, (const void *)(uintptr_t)src, bytes);
}
static CUresult fake_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream s) {
  (void)s;
  return copy_async("cuMemcpyHtoDAsync", (void *)(uintptr_t)dst, src, bytes);
}
static CUresult fake_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream s) {
  (void)s;
  return copy_async("cuMemcpyDtoHAsync", dst, (const void *)(uintptr_t)src, bytes);
}

static CUresult fake_cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t bytes) {
  ENTER("cuMemsetD8");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  flush_all();
  memset((void *)(uintptr_t)dst, value, bytes);
  return CUDA_SUCCESS;
}

/* Stream-ordered allocation (reductions' scratch): the fake runs everything in order. */
/* What the stream-ordered allocations share. */
static CUresult alloc_async(CUdeviceptr *dptr, size_t bytes) {
  void *p;
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (!(p = aligned_alloc(256, (bytes + 255) & ~(size_t)255))) return CUDA_ERROR_OUT_OF_MEMORY;
  __atomic_add_fetch(&live_device, 1, __ATOMIC_RELAXED);
  *dptr = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}
static CUresult fake_cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream s) {
  (void)s;
  ENTER("cuMemAllocAsync");
  return alloc_async(dptr, bytes);
}
/* Pools: a handle per pool; their allocations are the same as cuMemAllocAsync's. */
static long live_pools;
static CUresult fake_cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props) {
  ENTER("cuMemPoolCreate");
  if (!pool || !props || props->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return CUDA_ERROR_INVALID_VALUE;
  if (!(*pool = malloc(16))) return CUDA_ERROR_OUT_OF_MEMORY;
  __atomic_add_fetch(&live_pools, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
static CUresult fake_cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attribute,
                                           void *value) {
  (void)attribute;
  ENTER("cuMemPoolSetAttribute");
  return pool && value ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
static CUresult fake_cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
                                             CUstream s) {
  (void)s;
  ENTER("cuMemAllocFromPoolAsync");
  if (!pool) return CUDA_ERROR_INVALID_VALUE;
  return alloc_async(dptr, bytes);
}

static CUresult fake_cuMemFreeAsync(CUdeviceptr dptr, CUstream s) {
  (void)s;
  ENTER("cuMemFreeAsync");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (!dptr) return CUDA_ERROR_INVALID_VALUE;
  flush_all(); /* in stream order: after what was queued before it */
  free((void *)(uintptr_t)dptr);
  __atomic_sub_fetch(&live_device, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
static CUresult fake_cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count, CUstream s) {
  size_t i;
  (void)s;
  ENTER("cuMemsetD32Async");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  flush_all();
  for (i = 0; i < count; i++) ((unsigned *)(uintptr_t)dst)[i] = value;
  return CUDA_SUCCESS;
}

/* ---- streams and events -------------------------------------------------------------------- */

typedef struct fake_event {
  double ms;
  unsigned long seq; /* the async copies queued before its last record */
} fake_event;

static CUresult fake_cuStreamCreate(CUstream *stream, unsigned flags) {
  ENTER("cuStreamCreate");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (flags & ~(unsigned)CU_STREAM_NON_BLOCKING) return CUDA_ERROR_INVALID_VALUE;
  if (!(*stream = malloc(16))) return CUDA_ERROR_OUT_OF_MEMORY;
  __atomic_add_fetch(&live_streams, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamDestroy(CUstream stream) {
  ENTER("cuStreamDestroy");
  if (!stream) return CUDA_ERROR_INVALID_HANDLE;
  free(stream);
  __atomic_sub_fetch(&live_streams, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}

static CUresult fake_cuStreamSynchronize(CUstream stream) {
  (void)stream;
  if (current) flush_all(); /* the device finishes its work even when the call is made to fail */
  ENTER("cuStreamSynchronize");
  return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/* Streams run in order and copies are done when queued (or flushed): waiting is a no-op. */
static CUresult fake_cuStreamWaitEvent(CUstream stream, CUevent event, unsigned flags) {
  (void)stream;
  ENTER("cuStreamWaitEvent");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (!event || flags) return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventCreate(CUevent *event, unsigned flags) {
  (void)flags;
  ENTER("cuEventCreate");
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  if (!(*event = calloc(1, sizeof(fake_event)))) return CUDA_ERROR_OUT_OF_MEMORY;
  __atomic_add_fetch(&live_events, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventRecord(CUevent event, CUstream stream) {
  struct timespec ts;
  (void)stream;
  ENTER("cuEventRecord");
  if (!event) return CUDA_ERROR_INVALID_HANDLE;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ((fake_event *)event)->seq = queue_end;
  ((fake_event *)event)->ms = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventSynchronize(CUevent event) {
  if (event) flush_until(((fake_event *)event)->seq); /* even when made to fail */
  ENTER("cuEventSynchronize");
  if (!event) return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventElapsedTime(float *ms, CUevent start, CUevent stop) {
  ENTER("cuEventElapsedTime");
  if (!start || !stop) return CUDA_ERROR_INVALID_HANDLE;
  *ms = (float)(((fake_event *)stop)->ms - ((fake_event *)start)->ms);
  return CUDA_SUCCESS;
}

static CUresult fake_cuEventDestroy(CUevent event) {
  ENTER("cuEventDestroy");
  if (!event) return CUDA_ERROR_INVALID_HANDLE;
  free(event);
  __atomic_sub_fetch(&live_events, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}

/* ---- cuGetProcAddress ---------------------------------------------------------------------- */

static const struct {
  const char *name;
  void *fn;
  int since; /* driver version that introduced it: the version the runtime asks for */
} procs[] = {
#define P(name, since) {#name, (void *)fake_##name, since},
    CUBIND_DRIVER_API(P, P)
#undef P
};

static CUresult get_proc(const char *symbol, void **pfn, CUdriverProcAddressQueryResult *found) {
  const char *env = getenv("FAKE_CUDA_VERSION"), *hide = getenv("FAKE_CUDA_HIDE");
  const char *stub = getenv("FAKE_CUDA_STUB");
  int version = env ? atoi(env) : 12080;
  size_t i;
  *pfn = NULL;
  /* the toolkit's stub libcuda.so: every call fails, `found` untouched */
  if (stub && strcmp(stub, "1") == 0) return CUDA_ERROR_STUB_LIBRARY;
  if (found) *found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  for (i = 0; i < sizeof procs / sizeof procs[0]; i++) {
    if (strcmp(procs[i].name, symbol) != 0) continue;
    if ((hide && strcmp(hide, symbol) == 0)) return CUDA_ERROR_NOT_FOUND;
    if (procs[i].since > version) {
      if (found) *found = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
      return CUDA_ERROR_NOT_FOUND;
    }
    *pfn = procs[i].fn;
    if (found) *found = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_NOT_FOUND;
}

/* cuda.h maps these names to the newest versions; the fake exports both plain symbols. */
#undef cuGetProcAddress
#undef cuGetProcAddress_v2

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                                    CUdriverProcAddressQueryResult *found) {
  (void)version, (void)flags;
  return get_proc(symbol, pfn, found);
}

EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags) {
  (void)version, (void)flags;
  return get_proc(symbol, pfn, NULL);
}
