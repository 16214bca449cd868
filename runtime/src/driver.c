/*
 * driver.c: loads the CUDA driver library at run time and resolves every entry point in
 * driver_api.h through cuGetProcAddress, once per process; tells a missing driver, a library
 * that is no CUDA driver, the toolkit's stub libcuda.so and a driver too old apart.
 */
#define _GNU_SOURCE /* RTLD_*, dladdr and pthread on every libc */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "error.h"

#define CUBIND_DEFAULT_DRIVER "libcuda.so.1"

cubind__driver_table cubind__drv;
int cubind__ready;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t path_lock = PTHREAD_MUTEX_INITIALIZER;
static int init_started;          /* under path_lock: no more cubind_set_driver_library */
static char driver_path[4096];    /* under path_lock: "" means the default */
static const char *path_origin;   /* under path_lock: who named the path, for messages */
static cubind_status init_status; /* written once inside init_once */
static char init_message[CUBIND_MESSAGE_SIZE]; /* the init failure, replayed to later callers */
static int device_count;
static void *driver_handle; /* kept open for the life of the process */

/* Records the init failure; the message is replayed by cubind__driver_ready. */
static void init_fail(cubind_status status, const char *message) {
  init_status = status;
  snprintf(init_message, sizeof init_message, "%s", message);
}

/*
 * dlsym returns void *; C99 has no conversion from it to a function pointer, hence the memcpy
 * into the caller's function pointer (`fn`, of any function pointer type). Returns the address.
 */
#define CUBIND_SYMBOL_(fn, handle, name)                                                           \
  do {                                                                                             \
    void *sym_ = dlsym((handle), (name));                                                          \
    memcpy(&(fn), &sym_, sizeof sym_);                                                             \
  } while (0)

/*
 * " (/usr/local/cuda/lib64/stubs/libcuda.so)": the file `sym` came from, symbolic links
 * resolved, when it is not `path` itself.
 */
static void loaded_file(const void *sym, const char *path, char *buf, size_t size) {
  char resolved[PATH_MAX];
  const char *file;
  Dl_info info;
  buf[0] = '\0';
  if (!sym || !dladdr(sym, &info) || !info.dli_fname) return;
  file = realpath(info.dli_fname, resolved) ? resolved : info.dli_fname;
  if (strcmp(file, path) != 0) snprintf(buf, size, " (%.250s)", file);
}

/* The toolkit's stub libcuda.so: every call fails with CUDA_ERROR_STUB_LIBRARY. */
static void stub_library(const char *path, const char *file, const char *call) {
  char message[CUBIND_MESSAGE_SIZE];
  snprintf(message, sizeof message,
           "'%.200s'%s is the CUDA toolkit's stub libcuda.so, not the driver (%s returned "
           "CUDA_ERROR_STUB_LIBRARY): the stub only lets programs link. The driver's "
           "libcuda.so.1 comes with the NVIDIA driver: take the toolkit's lib64/stubs directory "
           "out of LD_LIBRARY_PATH, give containers the host's driver (e.g. docker run --gpus "
           "all with the NVIDIA Container Toolkit), or point CUBIND_DRIVER_LIBRARY at the "
           "driver's libcuda.so.1 (the path came from %s)",
           path, file, call, path_origin);
  init_fail(CUBIND_ERROR_NO_DRIVER, message);
}

/* Resolves one entry point with cuGetProcAddress (v2 signature, or the 11.3 one). */
static void *resolve(PFN_cuGetProcAddress_v12000 get_v2, PFN_cuGetProcAddress_v11030 get_v1,
                     const char *name, int version, CUresult *result) {
  void *fn = NULL;
  CUresult r;
  if (get_v2) {
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SUCCESS;
    r = get_v2(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found);
    if (r == CUDA_SUCCESS && found != CU_GET_PROC_ADDRESS_SUCCESS) r = CUDA_ERROR_NOT_FOUND;
  } else {
    r = get_v1(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT);
  }
  *result = r;
  return r == CUDA_SUCCESS ? fn : NULL;
}

/*
 * A library without cuGetProcAddress: not a CUDA driver at all (no cuInit either), the stub, or
 * a driver older than CUDA 11.3.
 */
static void no_get_proc_address(const char *path) {
  char message[CUBIND_MESSAGE_SIZE], file[260];
  PFN_cuInit_v2000 init;
  PFN_cuDriverGetVersion_v2020 get_version;
  int version = 0;
  CUBIND_SYMBOL_(init, driver_handle, "cuInit");
  CUBIND_SYMBOL_(get_version, driver_handle, "cuDriverGetVersion");
  if (!init) {
    snprintf(message, sizeof message,
             "'%.600s' is not a CUDA driver library: it has neither cuGetProcAddress nor cuInit "
             "(the path came from %s; the driver is libcuda.so.1, installed with the NVIDIA "
             "driver)",
             path, path_origin);
    init_fail(CUBIND_ERROR_NO_DRIVER, message);
    return;
  }
  loaded_file(dlsym(driver_handle, "cuInit"), path, file, sizeof file);
  if (init(0) == CUDA_ERROR_STUB_LIBRARY) {
    stub_library(path, file, "cuInit");
    return;
  }
  if (get_version && get_version(&version) == CUDA_SUCCESS && version > 0)
    snprintf(message, sizeof message,
             "the CUDA driver '%.600s' is version %d.%d, older than CUDA 11.3, the first with "
             "cuGetProcAddress, which cubind needs: update the NVIDIA driver",
             path, version / 1000, (version % 1000) / 10);
  else
    snprintf(message, sizeof message,
             "the CUDA driver '%.600s' has no cuGetProcAddress: it is older than CUDA 11.3, "
             "which cubind needs: update the NVIDIA driver",
             path);
  init_fail(CUBIND_ERROR_DRIVER_TOO_OLD, message);
}

/* The body of the one-time initialisation (pthread_once). */
static void driver_init(void) {
  char message[CUBIND_MESSAGE_SIZE], file[260], error[256];
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
    path_origin = env && env[0] ? "CUBIND_DRIVER_LIBRARY" : "cubind's default, " CUBIND_DEFAULT_DRIVER;
  }
  path = driver_path;
  pthread_mutex_unlock(&path_lock);

  driver_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!driver_handle) {
    const char *why = dlerror();
    snprintf(message, sizeof message,
             "cannot load the CUDA driver library '%.600s': %s (is the NVIDIA driver installed? "
             "CUBIND_DRIVER_LIBRARY overrides the path)",
             path, why ? why : "unknown reason");
    init_fail(CUBIND_ERROR_NO_DRIVER, message);
    return;
  }
  CUBIND_SYMBOL_(get_v2, driver_handle, "cuGetProcAddress_v2");
  if (!get_v2) CUBIND_SYMBOL_(get_v1, driver_handle, "cuGetProcAddress");
  if (!get_v2 && !get_v1) {
    no_get_proc_address(path);
    return;
  }
  loaded_file(dlsym(driver_handle, get_v2 ? "cuGetProcAddress_v2" : "cuGetProcAddress"), path,
              file, sizeof file);

#define CUBIND_RESOLVE_REQUIRED_(name, version)                                                    \
  {                                                                                                \
    void *fn_ = resolve(get_v2, get_v1, #name, version, &r);                                       \
    if (!fn_) {                                                                                    \
      if (r == CUDA_ERROR_STUB_LIBRARY) {                                                          \
        stub_library(path, file, "cuGetProcAddress");                                              \
        return;                                                                                    \
      }                                                                                            \
      snprintf(message, sizeof message,                                                            \
               "the CUDA driver '%.600s' lacks %s (CUDA %d.%d API), which cubind needs", path,     \
               #name, version / 1000, (version % 1000) / 10);                                      \
      init_fail(CUBIND_ERROR_DRIVER_TOO_OLD, message);                                             \
      return;                                                                                      \
    }                                                                                              \
    memcpy(&cubind__drv.name, &fn_, sizeof fn_);                                                   \
  }
#define CUBIND_RESOLVE_OPTIONAL_(name, version)                                                    \
  {                                                                                                \
    void *fn_ = resolve(get_v2, get_v1, #name, version, &r);                                       \
    memcpy(&cubind__drv.name, &fn_, sizeof fn_);                                                   \
  }
  CUBIND_DRIVER_API(CUBIND_RESOLVE_REQUIRED_, CUBIND_RESOLVE_OPTIONAL_)
#undef CUBIND_RESOLVE_REQUIRED_
#undef CUBIND_RESOLVE_OPTIONAL_

  r = cubind__drv.cuInit(0);
  if (r == CUDA_ERROR_STUB_LIBRARY) {
    stub_library(path, file, "cuInit");
    return;
  }
  if (r == CUDA_ERROR_NO_DEVICE) {
    snprintf(
        message, sizeof message,
        "no CUDA device is available: cuInit failed with CUDA_ERROR_NO_DEVICE (driver '%.600s'; "
        "check CUDA_VISIBLE_DEVICES and that a GPU is attached)",
        path);
    init_fail(CUBIND_ERROR_NO_DEVICE, message);
    return;
  }
  if (r != CUDA_SUCCESS) {
    cubind__cuda_error_text(r, error, sizeof error);
    snprintf(message, sizeof message, "cuInit failed (driver '%.600s'): %s", path, error);
    init_fail(CUBIND_ERROR_NO_DRIVER, message);
    return;
  }
  r = cubind__drv.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count <= 0) {
    if (r != CUDA_SUCCESS) cubind__cuda_error_text(r, error, sizeof error);
    snprintf(message, sizeof message,
             "no CUDA device is available: cuDeviceGetCount %s%s (driver '%.600s')",
             r != CUDA_SUCCESS ? "failed: " : "reports 0 devices", r != CUDA_SUCCESS ? error : "",
             path);
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

void cubind__cuda_error_text(CUresult result, char *buf, size_t size) {
  const char *name = NULL, *text = NULL;
  /* The driver's own tables; absent only if it failed to load. */
  if (!cubind__drv.cuGetErrorName || cubind__drv.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = NULL;
  if (!cubind__drv.cuGetErrorString || cubind__drv.cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = NULL;
  if (name)
    snprintf(buf, size, "%s (%s)", name, text ? text : "no description");
  else
    snprintf(buf, size, "CUDA error %d (the driver has no name for it)", (int)result);
}

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
  if (init_started) {
    status = CUBIND_ERROR_INVALID_VALUE;
  } else {
    snprintf(driver_path, sizeof driver_path, "%s", path);
    path_origin = "cubind_set_driver_library";
  }
  pthread_mutex_unlock(&path_lock);
  if (status != CUBIND_SUCCESS)
    return cubind__fail(status, "cubind_set_driver_library: the driver was already loaded (or "
                                "its load already failed, which is final); call it before any "
                                "other cubind function");
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
