/*
 * bench_common.h: what every cubind benchmark shares.
 *
 * - Status checks that print the failing call, the status and cubind_last_error() and exit(1):
 *   a benchmark that measured a failing call would report nonsense, so it stops instead.
 * - bench_require_gpu(): prints "skipped: no GPU" and exits 77 where there is no driver or GPU.
 * - bench_driver: the raw CUDA driver entry points, obtained like any program would without
 *   linking libcuda: dlopen("libcuda.so.1") + cuGetProcAddress_v2. The baselines call these.
 * - A monotonic clock, medians, and a results table written as CSV or JSON.
 */
#ifndef CUBIND_BENCH_COMMON_H
#define CUBIND_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <cuda.h>
#include <cubind/cubind.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit code that CTest and bench/run_all.sh read as "skipped". */
#define BENCH_SKIP 77

/* ---- Checks ---------------------------------------------------------------------------------- */

void bench_fail_cubind(const char *what, cubind_status s, const char *file, int line);
void bench_fail_cuda(const char *what, CUresult r, const char *file, int line);
void bench_fail(const char *file, int line, const char *fmt, ...);

#define CHECK_CB(call)                                                                            \
  do {                                                                                            \
    cubind_status check_cb_s_ = (call);                                                           \
    if (check_cb_s_ != CUBIND_SUCCESS) bench_fail_cubind(#call, check_cb_s_, __FILE__, __LINE__); \
  } while (0)

#define CHECK_CU(call)                                                                          \
  do {                                                                                          \
    CUresult check_cu_r_ = (call);                                                              \
    if (check_cu_r_ != CUDA_SUCCESS) bench_fail_cuda(#call, check_cu_r_, __FILE__, __LINE__);   \
  } while (0)

/* cubind_init(); on "no driver" or "no device" prints "skipped: no GPU" and exits 77. */
void bench_require_gpu(void);

/* ---- Raw driver API ------------------------------------------------------------------------- */

typedef struct bench_driver {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuGetErrorName)(CUresult r, const char **name);
  CUresult (*cuGetErrorString)(CUresult r, const char **text);
  CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);
  CUresult (*cuDeviceGetAttribute)(int *value, CUdevice_attribute attribute, CUdevice dev);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
  CUresult (*cuCtxGetCurrent)(CUcontext *ctx);
  CUresult (*cuCtxSetCurrent)(CUcontext ctx);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuModuleLoadData)(CUmodule *mod, const void *image);
  CUresult (*cuModuleGetFunction)(CUfunction *f, CUmodule mod, const char *name);
  CUresult (*cuModuleUnload)(CUmodule mod);
  CUresult (*cuLibraryLoadData)(CUlibrary *library, const void *code, CUjit_option *jit_options,
                                void **jit_values, unsigned num_jit, CUlibraryOption *options,
                                void **values, unsigned num_options);
  CUresult (*cuLibraryGetKernel)(CUkernel *kernel, CUlibrary library, const char *name);
  CUresult (*cuKernelGetFunction)(CUfunction *f, CUkernel kernel);
  CUresult (*cuKernelGetParamInfo)(CUkernel kernel, size_t index, size_t *offset, size_t *size);
  CUresult (*cuFuncGetParamInfo)(CUfunction f, size_t index, size_t *offset, size_t *size);
  CUresult (*cuFuncGetAttribute)(int *value, CUfunction_attribute attribute, CUfunction f);
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned shared, CUstream stream,
                             void **params, void **extra);
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *config, CUfunction f, void **params,
                               void **extra);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuMemAlloc)(CUdeviceptr *dptr, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr dptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
} bench_driver;

/* The process's driver table, filled by bench_driver_load(); exits on failure. */
extern bench_driver bench_cu;
void bench_driver_load(void);

/*
 * Makes sure the calling thread has a current context: the one cubind made current, else the
 * primary context of device 0 (the one cubind and the CUDA runtime both use).
 */
void bench_driver_use_primary_context(void);

/* Loads `fatbin` (the bytes cubind embeds) into the current context and finds `symbol`. */
CUfunction bench_driver_function(const void *fatbin, const char *symbol);

/* ---- Time and statistics -------------------------------------------------------------------- */

/* Monotonic clock in nanoseconds. */
static inline int64_t bench_now_ns(void);

double bench_median(const double *values, size_t n); /* n > 0; does not reorder values */
double bench_percentile(const double *values, size_t n, double p); /* p in [0, 100] */

/* ---- Results -------------------------------------------------------------------------------- */

/*
 * One measured number. The full table goes to the file given on the command line: JSON when its
 * name ends in ".json", CSV otherwise (columns: benchmark,case,variant,metric,value,unit).
 */
void bench_result(const char *benchmark, const char *case_name, const char *variant,
                  const char *metric, double value, const char *unit);
void bench_write_results(const char *path); /* NULL: nothing to write */

#ifdef __cplusplus
}
#endif

#include <time.h>
static inline int64_t bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif /* CUBIND_BENCH_COMMON_H */
