/*
 * module_load: what loading a big module costs, for a fatbin of many kernels (default 2000,
 * generated at configure time: bench/CMakeLists.txt, CUBIND_BENCH_MODULE_KERNELS).
 *
 * One measurement per process (loading happens once per process), chosen by argv[1]:
 *   preload   cubind_init, then cubind_preload() (eager: everything loaded up front), then the
 *             first launch of the first and of the last kernel (+ synchronize)
 *   lazy      cubind_init, then the first launch of the first kernel, which loads the module,
 *             then the first launch of the last kernel
 *   raw       cubind_init (same driver init), then cuModuleLoadData of the same bytes with the
 *             driver, cuModuleGetFunction + launch of the first and the last kernel
 *   rawlib    the same through the library API: cuLibraryLoadData, then cuLibraryGetKernel +
 *             cuKernelGetFunction + launch of the first and the last kernel
 *   rawlib_check    rawlib whose load step also asks every kernel's parameter layout from its
 *             CUkernel (cuLibraryGetKernel + cuKernelGetParamInfo): an ABI check that needs no
 *             function loaded on the device
 *   rawlib_resolve  rawlib whose load step also resolves every kernel as a launch needs it
 *             (cuKernelGetFunction, cuFuncGetParamInfo, two attributes): what loading all
 *             kernels eagerly costs
 * The driver's own lazy loading (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2, or EAGER)
 * changes what "load" does; bench/module_load.sh runs every mode under both.
 *
 * Prints one line: "mode <m> init_ms <x> load_ms <x> first_ms <x> last_ms <x> rss_kib <x>", where
 * load_ms is the loading step (0 for lazy, whose loading is inside first_ms), first_ms/last_ms the
 * first launch + synchronize of the first/last kernel, and rss_kib the growth of the resident set
 * over load + both launches (the host memory the loaded module costs, driver's share included).
 *
 * Usage: module_load preload|lazy|raw
 */
#include "bench_common.h"
#include "many_kernels.cubind.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern const unsigned char cubind_fatbin_many_kernels[];

/* From CMake: BENCH_MANY_COUNT kernels, k0000 .. BENCH_MANY_LAST. */
#define BENCH_CAT_(a, b) a##b
#define BENCH_CAT(a, b) BENCH_CAT_(a, b)
#define BENCH_STR_(a) #a
#define BENCH_STR(a) BENCH_STR_(a)
#define LAST_LAUNCH BENCH_CAT(BENCH_MANY_LAST, _launch)

static long rss_kib(void) {
  long pages_total = 0, pages_resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2)
    bench_fail(__FILE__, __LINE__, "cannot read /proc/self/statm");
  fclose(f);
  return pages_resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static double ms_since(int64_t t0) { return (double)(bench_now_ns() - t0) / 1e6; }

int main(int argc, char **argv) {
  if (argc != 2 ||
      (strcmp(argv[1], "preload") && strcmp(argv[1], "lazy") && strcmp(argv[1], "raw") &&
       strncmp(argv[1], "rawlib", 6))) {
    fprintf(stderr, "usage: module_load preload|lazy|raw|rawlib|rawlib_check|rawlib_resolve\n");
    return 2;
  }
  const char *mode = argv[1];
  void *dev;
  int64_t t = bench_now_ns();
  bench_require_gpu();
  CHECK_CB(cubind_malloc(&dev, 1024 * sizeof(float))); /* makes the context: part of init */
  CHECK_CB(cubind_memset_d8(dev, 0, 1024 * sizeof(float)));
  double init_ms = ms_since(t);
  long rss0 = rss_kib();
  double load_ms = 0, first_ms, last_ms;
  cubind_config cfg = cubind_config_1d(1024, 256);

  if (strcmp(mode, "raw") == 0) {
    bench_driver_load();
    bench_driver_use_primary_context();
    CUmodule mod;
    CUfunction f;
    int n = 1024;
    void *args[] = {&dev, &n};
    t = bench_now_ns();
    CHECK_CU(bench_cu.cuModuleLoadData(&mod, cubind_fatbin_many_kernels));
    load_ms = ms_since(t);
    t = bench_now_ns();
    CHECK_CU(bench_cu.cuModuleGetFunction(&f, mod, "k0000"));
    CHECK_CU(bench_cu.cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CHECK_CU(bench_cu.cuStreamSynchronize(NULL));
    first_ms = ms_since(t);
    t = bench_now_ns();
    CHECK_CU(bench_cu.cuModuleGetFunction(&f, mod, BENCH_STR(BENCH_MANY_LAST)));
    CHECK_CU(bench_cu.cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CHECK_CU(bench_cu.cuStreamSynchronize(NULL));
    last_ms = ms_since(t);
  } else if (strncmp(mode, "rawlib", 6) == 0) {
    bench_driver_load();
    bench_driver_use_primary_context();
    CUlibrary lib;
    CUkernel kernel;
    CUfunction f;
    int n = 1024;
    void *args[] = {&dev, &n};
    t = bench_now_ns();
    CHECK_CU(bench_cu.cuLibraryLoadData(&lib, cubind_fatbin_many_kernels, NULL, NULL, 0, NULL,
                                        NULL, 0));
    for (int k = 0; mode[6] && k < BENCH_MANY_COUNT; k++) {
      char name[16];
      size_t offset, size;
      snprintf(name, sizeof name, "k%04d", k);
      CHECK_CU(bench_cu.cuLibraryGetKernel(&kernel, lib, name));
      if (strcmp(mode, "rawlib_check") == 0) {
        for (size_t p = 0; p < 2; p++)
          CHECK_CU(bench_cu.cuKernelGetParamInfo(kernel, p, &offset, &size));
      } else {
        int value;
        CHECK_CU(bench_cu.cuKernelGetFunction(&f, kernel));
        for (size_t p = 0; p < 2; p++)
          CHECK_CU(bench_cu.cuFuncGetParamInfo(f, p, &offset, &size));
        CHECK_CU(bench_cu.cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
        CHECK_CU(bench_cu.cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
      }
    }
    load_ms = ms_since(t);
    t = bench_now_ns();
    CHECK_CU(bench_cu.cuLibraryGetKernel(&kernel, lib, "k0000"));
    CHECK_CU(bench_cu.cuKernelGetFunction(&f, kernel));
    CHECK_CU(bench_cu.cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CHECK_CU(bench_cu.cuStreamSynchronize(NULL));
    first_ms = ms_since(t);
    t = bench_now_ns();
    CHECK_CU(bench_cu.cuLibraryGetKernel(&kernel, lib, BENCH_STR(BENCH_MANY_LAST)));
    CHECK_CU(bench_cu.cuKernelGetFunction(&f, kernel));
    CHECK_CU(bench_cu.cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CHECK_CU(bench_cu.cuStreamSynchronize(NULL));
    last_ms = ms_since(t);
  } else {
    if (strcmp(mode, "preload") == 0) {
      t = bench_now_ns();
      CHECK_CB(cubind_preload());
      load_ms = ms_since(t);
    }
    t = bench_now_ns();
    CHECK_CB(k0000_launch(&cfg, (float *)dev, 1024));
    CHECK_CB(cubind_synchronize());
    first_ms = ms_since(t);
    t = bench_now_ns();
    CHECK_CB(LAST_LAUNCH(&cfg, (float *)dev, 1024));
    CHECK_CB(cubind_synchronize());
    last_ms = ms_since(t);
  }
  long rss1 = rss_kib();

  /* Kernel kNNNN adds NNNN: after the first (k0000) and the last, a[i] is the last's number. */
  float check[1024];
  CHECK_CB(cubind_from_device(check, dev, sizeof check));
  for (int i = 0; i < 1024; i++)
    if (check[i] != (float)(BENCH_MANY_COUNT - 1))
      bench_fail(__FILE__, __LINE__, "a[%d] = %g, expected %d", i, (double)check[i],
                 BENCH_MANY_COUNT - 1);
  CHECK_CB(cubind_free(dev));
  printf("mode %s init_ms %.3f load_ms %.3f first_ms %.3f last_ms %.3f rss_kib %ld\n", mode,
         init_ms, load_ms, first_ms, last_ms, rss1 - rss0);
  return 0;
}
