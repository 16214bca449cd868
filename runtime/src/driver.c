/*
 * driver.c: loads the CUDA driver library at run time and resolves every entry point in
 * driver_api.h through cuGetProcAddress, once per process.
 */
#define _GNU_SOURCE /* RTLD_* and pthread on every libc */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CUBIND_DEFAULT_DRIVER "libcuda.so.1"

cubind__driver_table cubind__drv;
int cubind__ready;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t path_lock = PTHREAD_MUTEX_INITIALIZER;
static int init_started;          /* under path_lock: no more cubind_set_driver_library */
static char driver_path[4096];    /* under path_lock: "" means the default */
static cubind_status init_status; /* written once inside init_once */
static char init_message[1024];   /* the init failure, replayed to every later caller */
static int device_count;
static void *driver_handle; /* kept open for the life of the process */

/* Records the init failure; the message is replayed by cubind__driver_ready. */
static void init_fail(cubind_status status, const char *message) {
  init_status = status;
  snprintf(init_message, sizeof init_message, "%s", message);
}

/* Resolves one entry point with cuGetProcAddress (v2 signature, or the 11.3 one). */
static void *resolve(PFN_cuGetProcAddress_v12000 get_v2, PFN_cuGetProcAddress_v11030 get_v1,
                     const char *name, int version) {
  void *fn = NULL;
  CUresult r;
  if (get_v2) {
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SUCCESS;
    r = get_v2(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found);
    if (found != CU_GET_PROC_ADDRESS_SUCCESS) fn = NULL;
  } else {
    r = get_v1(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT);
  }
  return r == CUDA_SUCCESS ? fn : NULL;
}

/* The body of the one-time initialisation (pthread_once). */
static void driver_init(void) {
  char message[1024];
  const char *path;
  PFN_cuGetProcAddress_v12000 get_v2;
  PFN_cuGetProcAddress_v11030 get_v1 = NULL;
  CUresult r;
  int count = 0;

  pthread_mutex_lock(&path_lock);
  init_started = 1;
  if (driver_path[0] == '\0') {
    const char *env = getenv("CUBIND_DRIVER_LIBRARY");
    snprintf(driver_path, sizeof driver_path, "%s", env && env[0] ? env : CUBIND_DEFAULT_DRIVER);
  }
  path = driver_path;
  pthread_mutex_unlock(&path_lock);

  driver_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!driver_handle) {
    const char *why = dlerror();
    snprintf(message, sizeof message,
             "cannot load the CUDA driver library '%.800s': %s (is the NVIDIA driver installed? "
             "CUBIND_DRIVER_LIBRARY overrides the path)",
             path, why ? why : "unknown reason");
    init_fail(CUBIND_ERROR_NO_DRIVER, message);
    return;
  }
  /* dlsym returns void *; C99 has no function-pointer conversion from it, hence the memcpy. */
  {
    void *sym = dlsym(driver_handle, "cuGetProcAddress_v2");
    memcpy(&get_v2, &sym, sizeof sym);
    if (!get_v2) {
      sym = dlsym(driver_handle, "cuGetProcAddress");
      memcpy(&get_v1, &sym, sizeof sym);
    }
  }
  if (!get_v2 && !get_v1) {
    snprintf(message, sizeof message,
             "the CUDA driver library '%.800s' has no cuGetProcAddress: the driver is older than "
             "CUDA 11.3",
             path);
    init_fail(CUBIND_ERROR_DRIVER_TOO_OLD, message);
    return;
  }

#define CUBIND_RESOLVE_REQUIRED_(name, version)                                                    \
  {                                                                                                \
    void *fn = resolve(get_v2, get_v1, #name, version);                                            \
    if (!fn) {                                                                                     \
      snprintf(message, sizeof message,                                                            \
               "the CUDA driver '%.800s' lacks %s (CUDA %d.%d API), which cubind needs", path,     \
               #name, version / 1000, (version % 1000) / 10);                                      \
      init_fail(CUBIND_ERROR_DRIVER_TOO_OLD, message);                                             \
      return;                                                                                      \
    }                                                                                              \
    memcpy(&cubind__drv.name, &fn, sizeof fn);                                                     \
  }
#define CUBIND_RESOLVE_OPTIONAL_(name, version)                                                    \
  {                                                                                                \
    void *fn = resolve(get_v2, get_v1, #name, version);                                            \
    memcpy(&cubind__drv.name, &fn, sizeof fn);                                                     \
  }
  CUBIND_DRIVER_API(CUBIND_RESOLVE_REQUIRED_, CUBIND_RESOLVE_OPTIONAL_)
#undef CUBIND_RESOLVE_REQUIRED_
#undef CUBIND_RESOLVE_OPTIONAL_

  /* The library API comes as a set: use it only when all of it is there. */
  if (!cubind__drv.cuLibraryLoadData || !cubind__drv.cuLibraryUnload ||
      !cubind__drv.cuLibraryGetKernel || !cubind__drv.cuKernelGetFunction)
    cubind__drv.cuLibraryLoadData = NULL;

  r = cubind__drv.cuInit(0);
  if (r == CUDA_ERROR_NO_DEVICE) {
    snprintf(
        message, sizeof message,
        "no CUDA device is available: cuInit failed with CUDA_ERROR_NO_DEVICE (driver '%.800s'; "
        "check CUDA_VISIBLE_DEVICES and that a GPU is attached)",
        path);
    init_fail(CUBIND_ERROR_NO_DEVICE, message);
    return;
  }
  if (r != CUDA_SUCCESS) {
    const char *name = NULL, *text = NULL;
    if (cubind__drv.cuGetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;
    if (cubind__drv.cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;
    snprintf(message, sizeof message, "cuInit failed (driver '%.800s'): %s (%s)", path,
             name ? name : "unknown CUDA error", text ? text : "no description");
    init_fail(CUBIND_ERROR_NO_DRIVER, message);
    return;
  }
  r = cubind__drv.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count <= 0) {
    snprintf(message, sizeof message,
             "no CUDA device is available: cuDeviceGetCount %s (driver '%.800s')",
             r != CUDA_SUCCESS ? "failed" : "reports 0 devices", path);
    init_fail(CUBIND_ERROR_NO_DEVICE, message);
    return;
  }
  device_count = count;
  init_status = CUBIND_SUCCESS;
  __atomic_store_n(&cubind__ready, 1, __ATOMIC_RELEASE);
}

cubind_status cubind__driver_ready(const char *what) {
  pthread_once(&init_once, driver_init);
  if (CUBIND_LIKELY(init_status == CUBIND_SUCCESS)) return CUBIND_SUCCESS;
  return cubind__fail(init_status, "%s: %s", what, init_message);
}

int cubind__device_count(void) { return device_count; }

cubind_status cubind_init(void) { return cubind__driver_ready("cubind_init"); }

cubind_status cubind_set_driver_library(const char *path) {
  cubind_status status = CUBIND_SUCCESS;
  if (!path || !path[0])
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                        "cubind_set_driver_library: the path is NULL or empty");
  if (strlen(path) >= sizeof driver_path)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                        "cubind_set_driver_library: the path is longer than %zu bytes",
                        sizeof driver_path - 1);
  pthread_mutex_lock(&path_lock);
  if (init_started)
    status = CUBIND_ERROR_INVALID_VALUE;
  else
    snprintf(driver_path, sizeof driver_path, "%s", path);
  pthread_mutex_unlock(&path_lock);
  if (status != CUBIND_SUCCESS)
    return cubind__fail(status, "cubind_set_driver_library: the driver is already loaded; call it "
                                "before any other cubind function");
  return CUBIND_SUCCESS;
}

cubind_status cubind_device_count(int *count) {
  cubind_status status;
  if (!count) return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "cubind_device_count: count is NULL");
  status = cubind__driver_ready("cubind_device_count");
  if (status != CUBIND_SUCCESS) return status;
  *count = device_count;
  return CUBIND_SUCCESS;
}
