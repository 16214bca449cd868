/*
 * callgrind_launch.c: instructions per launch, counted by valgrind's callgrind against the fake
 * driver (tests/runtime/fake_cuda.c): a generated-style `_launch` stub vs a direct call of the
 * same cuLaunchKernel entry point. CPU only; run by bench/callgrind_launch.sh.
 *
 *   callgrind_launch stub|raw|ctx_raw N   (FAKE driver path in CUBIND_DRIVER_LIBRARY)
 *
 * The loops are the functions loop_stub0 / loop_stub2 / loop_raw0 / loop_raw2 /
 * loop_ctx_raw0 (cuCtxGetCurrent + cuLaunchKernel), which the script has callgrind count
 * (--toggle-collect); the difference stub - raw is what cubind adds per launch.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cubind/cubind.h>
#include <cubind/generated.h>

#include "cubind_fatbin_format.h"

/* An empty fatbin container: the fake driver loads anything that starts like one. */
static unsigned char fatbin[CUBIND_FATBIN_CONTAINER_SIZE] __attribute__((aligned(16)));
static size_t fatbin_size = sizeof fatbin;
static const cubind_param_info doublify_params[] = {{"a", 0, 8}, {"n", 8, 4}};
static const cubind_kernel_info kernels[] = {{"noop", "noop", NULL, 0},
                                             {"doublify", "doublify", doublify_params, 2}};
static cubind_module_state module_state;
static const cubind_module module = {CUBIND_ABI_VERSION, "cg", fatbin, &fatbin_size, kernels, 2,
                                     &module_state, NULL, 0};

/* What cubind-gen writes. */
__attribute__((noinline)) cubind_status noop_launch(const cubind_config *cfg) {
  return cubind_module_launch(&module, 0, cfg, NULL);
}
__attribute__((noinline)) cubind_status doublify_launch(const cubind_config *cfg, float *a, int n) {
  void *args[2] = {&a, &n};
  return cubind_module_launch(&module, 1, cfg, args);
}

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*ctx_fn)(CUcontext *);
static launch_fn raw_launch;
static ctx_fn raw_ctx;
static CUfunction f_noop, f_doublify;

__attribute__((noinline)) long loop_stub0(long n, const cubind_config *cfg) {
  long bad = 0, i;
  for (i = 0; i < n; i++)
    bad += noop_launch(cfg) != CUBIND_SUCCESS;
  return bad;
}
__attribute__((noinline)) long loop_stub2(long n, const cubind_config *cfg) {
  long bad = 0, i;
  for (i = 0; i < n; i++)
    bad += doublify_launch(cfg, NULL, 0) != CUBIND_SUCCESS;
  return bad;
}
__attribute__((noinline)) long loop_raw0(long n, const cubind_config *cfg) {
  long bad = 0, i;
  for (i = 0; i < n; i++)
    bad += raw_launch(f_noop, cfg->grid.x, cfg->grid.y, cfg->grid.z, cfg->block.x, cfg->block.y,
                      cfg->block.z, cfg->shared_bytes, cfg->stream, NULL, NULL) != CUDA_SUCCESS;
  return bad;
}
__attribute__((noinline)) long loop_raw2(long n, const cubind_config *cfg) {
  long bad = 0, i;
  for (i = 0; i < n; i++) {
    float *a = NULL;
    int k = 0;
    void *args[2] = {&a, &k};
    bad += raw_launch(f_doublify, cfg->grid.x, cfg->grid.y, cfg->grid.z, cfg->block.x,
                      cfg->block.y, cfg->block.z, cfg->shared_bytes, cfg->stream, args,
                      NULL) != CUDA_SUCCESS;
  }
  return bad;
}
__attribute__((noinline)) long loop_ctx_raw0(long n, const cubind_config *cfg) {
  long bad = 0, i;
  for (i = 0; i < n; i++) {
    CUcontext c;
    bad += raw_ctx(&c) != CUDA_SUCCESS;
    bad += raw_launch(f_noop, cfg->grid.x, cfg->grid.y, cfg->grid.z, cfg->block.x, cfg->block.y,
                      cfg->block.z, cfg->shared_bytes, cfg->stream, NULL, NULL) != CUDA_SUCCESS;
  }
  return bad;
}

int main(int argc, char **argv) {
  const char *path = getenv("CUBIND_DRIVER_LIBRARY");
  long n = argc > 2 ? atol(argv[2]) : 100000, bad = 0;
  cubind_config cfg = cubind_config_1d(1024, 256);
  CUresult (*gpa)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
  CUresult (*get_function)(CUfunction *, CUmodule, const char *);
  void *lib;
  cubind_fatbin_put_container(fatbin, 0);
  if (argc < 2 || !path || !(lib = dlopen(path, RTLD_NOW))) {
    fprintf(stderr, "usage: CUBIND_DRIVER_LIBRARY=libfake_cuda.so %s stub|raw|ctx_raw [N]\n",
            argv[0]);
    return 2;
  }
  *(void **)&gpa = dlsym(lib, "cuGetProcAddress_v2");
  gpa("cuLaunchKernel", (void **)&raw_launch, 4000, 0, NULL);
  gpa("cuCtxGetCurrent", (void **)&raw_ctx, 4000, 0, NULL);
  gpa("cuModuleGetFunction", (void **)&get_function, 2000, 0, NULL);
  /* warm: driver, context, module, both kernels */
  if (noop_launch(&cfg) != CUBIND_SUCCESS || doublify_launch(&cfg, NULL, 0) != CUBIND_SUCCESS) {
    fprintf(stderr, "%s\n", cubind_last_error());
    return 1;
  }
  get_function(&f_noop, (CUmodule)&lib, "noop"); /* the fake needs a module, any module */
  get_function(&f_doublify, (CUmodule)&lib, "doublify");
  if (strcmp(argv[1], "stub") == 0) bad = loop_stub0(n, &cfg) + loop_stub2(n, &cfg);
  else if (strcmp(argv[1], "raw") == 0) bad = loop_raw0(n, &cfg) + loop_raw2(n, &cfg);
  else bad = loop_ctx_raw0(n, &cfg);
  if (bad) fprintf(stderr, "%ld launches failed: %s\n", bad, cubind_last_error());
  return bad != 0;
}
