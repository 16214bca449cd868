/*
 * bench_common.c: checks, the raw driver table, statistics and the results writer shared by the
 * benchmarks (see bench_common.h).
 */
#include "bench_common.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Checks ---------------------------------------------------------------------------------- */

void bench_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s:%d: error: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

void bench_fail_cubind(const char *what, cubind_status s, const char *file, int line) {
  bench_fail(file, line, "%s failed: %s (%s): %s", what, cubind_status_name(s),
             cubind_status_string(s), cubind_last_error());
}

void bench_fail_cuda(const char *what, CUresult r, const char *file, int line) {
  const char *name = "?", *text = "?";
  if (bench_cu.cuGetErrorName) bench_cu.cuGetErrorName(r, &name);
  if (bench_cu.cuGetErrorString) bench_cu.cuGetErrorString(r, &text);
  bench_fail(file, line, "%s failed: %s (%d): %s", what, name, (int)r, text);
}

void bench_require_gpu(void) {
  cubind_status s = cubind_init();
  if (s == CUBIND_ERROR_NO_DRIVER || s == CUBIND_ERROR_NO_DEVICE) {
    printf("skipped: no GPU (%s)\n", cubind_last_error());
    exit(BENCH_SKIP);
  }
  CHECK_CB(s);
}

/* ---- Raw driver API ------------------------------------------------------------------------- */

bench_driver bench_cu;

/* The driver version whose entry-point ABI the prototypes in bench_driver match (12.0). */
#define BENCH_DRIVER_ABI 12000

void bench_driver_load(void) {
  typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t,
                                  CUdriverProcAddressQueryResult *);
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) bench_fail(__FILE__, __LINE__, "dlopen(libcuda.so.1): %s", dlerror());
  get_proc_fn get_proc;
  /* A plain cast from void * to a function pointer is not ISO C; memcpy is (POSIX's way). */
  void *sym = dlsym(lib, "cuGetProcAddress_v2");
  if (!sym) bench_fail(__FILE__, __LINE__, "libcuda.so.1 has no cuGetProcAddress_v2");
  memcpy(&get_proc, &sym, sizeof get_proc);

  /* Legacy-stream flavours: stream 0 means the legacy default stream, as in cubind. */
  /* #name before any expansion: cuda.h maps some names to their _v2 symbols, which
     cuGetProcAddress does not know; a function newer than BENCH_DRIVER_ABI is asked for as of
     the version that added it */
#define BENCH_LOAD(name) BENCH_LOAD_AS(name, #name, BENCH_DRIVER_ABI)
#define BENCH_LOAD_SINCE(name, version) BENCH_LOAD_AS(name, #name, version)
#define BENCH_LOAD_AS(field, symbol, version)                                                    \
  do {                                                                                           \
    void *pfn = NULL;                                                                            \
    CUdriverProcAddressQueryResult found;                                                        \
    CUresult r = get_proc(symbol, &pfn, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found);     \
    if (r != CUDA_SUCCESS || !pfn)                                                               \
      bench_fail(__FILE__, __LINE__, "cuGetProcAddress(%s) failed (CUresult %d)", symbol, (int)r); \
    memcpy(&bench_cu.field, &pfn, sizeof pfn);                                                   \
  } while (0)
  BENCH_LOAD(cuGetErrorName);
  BENCH_LOAD(cuGetErrorString);
  BENCH_LOAD(cuInit);
  BENCH_LOAD(cuDeviceGet);
  BENCH_LOAD(cuDeviceGetAttribute);
  BENCH_LOAD(cuDevicePrimaryCtxRetain);
  BENCH_LOAD(cuCtxGetCurrent);
  BENCH_LOAD(cuCtxSetCurrent);
  BENCH_LOAD(cuCtxSynchronize);
  BENCH_LOAD(cuModuleLoadData);
  BENCH_LOAD(cuModuleGetFunction);
  BENCH_LOAD(cuModuleUnload);
  BENCH_LOAD(cuLibraryLoadData);
  BENCH_LOAD(cuLibraryGetKernel);
  BENCH_LOAD(cuKernelGetFunction);
  BENCH_LOAD_SINCE(cuKernelGetParamInfo, 12040);
  BENCH_LOAD_SINCE(cuFuncGetParamInfo, 12040);
  BENCH_LOAD(cuFuncGetAttribute);
  BENCH_LOAD(cuLaunchKernel);
  BENCH_LOAD(cuLaunchKernelEx);
  BENCH_LOAD(cuStreamSynchronize);
  BENCH_LOAD(cuMemAlloc);
  BENCH_LOAD(cuMemFree);
  BENCH_LOAD(cuMemcpyHtoD);
  BENCH_LOAD(cuMemcpyDtoH);
  BENCH_LOAD(cuMemcpyDtoD);
#undef BENCH_LOAD
  CHECK_CU(bench_cu.cuInit(0));
}

void bench_driver_use_primary_context(void) {
  CUcontext ctx = NULL;
  CHECK_CU(bench_cu.cuCtxGetCurrent(&ctx));
  if (ctx) return; /* cubind left its context current on this thread: use that one */
  CUdevice dev;
  CHECK_CU(bench_cu.cuDeviceGet(&dev, 0));
  CHECK_CU(bench_cu.cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK_CU(bench_cu.cuCtxSetCurrent(ctx));
}

CUfunction bench_driver_function(const void *fatbin, const char *symbol) {
  CUmodule mod;
  CUfunction f;
  CHECK_CU(bench_cu.cuModuleLoadData(&mod, fatbin));
  CHECK_CU(bench_cu.cuModuleGetFunction(&f, mod, symbol));
  return f; /* the module stays loaded for the life of the process */
}

/* ---- Statistics ------------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_percentile(const double *values, size_t n, double p) {
  double *sorted = malloc(n * sizeof *sorted);
  if (!sorted) bench_fail(__FILE__, __LINE__, "out of host memory");
  memcpy(sorted, values, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, cmp_double);
  /* Linear interpolation between closest ranks. */
  double rank = p / 100.0 * (double)(n - 1);
  size_t lo = (size_t)rank;
  size_t hi = lo + 1 < n ? lo + 1 : lo;
  double v = sorted[lo] + (rank - (double)lo) * (sorted[hi] - sorted[lo]);
  free(sorted);
  return v;
}

double bench_median(const double *values, size_t n) { return bench_percentile(values, n, 50.0); }

/* ---- Results -------------------------------------------------------------------------------- */

typedef struct bench_row {
  char benchmark[32], case_name[48], variant[48], metric[48], unit[16];
  double value;
} bench_row;

static bench_row *rows;
static size_t num_rows, cap_rows;

static void copy_field(char *dst, size_t cap, const char *src) {
  snprintf(dst, cap, "%s", src ? src : "");
}

void bench_result(const char *benchmark, const char *case_name, const char *variant,
                  const char *metric, double value, const char *unit) {
  if (num_rows == cap_rows) {
    size_t cap = cap_rows ? 2 * cap_rows : 64;
    bench_row *grown = realloc(rows, cap * sizeof *grown);
    if (!grown) bench_fail(__FILE__, __LINE__, "out of host memory");
    rows = grown;
    cap_rows = cap;
  }
  bench_row *r = &rows[num_rows++];
  copy_field(r->benchmark, sizeof r->benchmark, benchmark);
  copy_field(r->case_name, sizeof r->case_name, case_name);
  copy_field(r->variant, sizeof r->variant, variant);
  copy_field(r->metric, sizeof r->metric, metric);
  copy_field(r->unit, sizeof r->unit, unit);
  r->value = value;
}

void bench_write_results(const char *path) {
  if (!path) return;
  FILE *f = fopen(path, "w");
  if (!f) bench_fail(__FILE__, __LINE__, "cannot write %s", path);
  size_t len = strlen(path);
  int json = len >= 5 && strcmp(path + len - 5, ".json") == 0;
  if (json) {
    fputs("[\n", f);
    for (size_t i = 0; i < num_rows; i++)
      fprintf(f,
              "  {\"benchmark\": \"%s\", \"case\": \"%s\", \"variant\": \"%s\", \"metric\": "
              "\"%s\", \"value\": %.6g, \"unit\": \"%s\"}%s\n",
              rows[i].benchmark, rows[i].case_name, rows[i].variant, rows[i].metric,
              rows[i].value, rows[i].unit, i + 1 < num_rows ? "," : "");
    fputs("]\n", f);
  } else {
    fputs("benchmark,case,variant,metric,value,unit\n", f);
    for (size_t i = 0; i < num_rows; i++)
      fprintf(f, "%s,%s,%s,%s,%.6g,%s\n", rows[i].benchmark, rows[i].case_name,
              rows[i].variant, rows[i].metric, rows[i].value, rows[i].unit);
  }
  if (fclose(f) != 0) bench_fail(__FILE__, __LINE__, "writing %s failed", path);
  printf("results written to %s\n", path);
}
