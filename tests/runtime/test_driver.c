/*
 * test_driver.c (runtime/src/driver.c): driver loading and initialisation, which happen once
 * per process: each case runs in a forked child (the parent never initialises cubind) and
 * reports through its exit status. Covers: no driver library, a library that is no CUDA driver
 * (libm), the toolkit's stub libcuda.so (the fake playing it, and the toolkit's own when it is
 * installed), a driver older than CUDA 11.3 (no cuGetProcAddress), a driver lacking an entry
 * point, cuInit and cuDeviceGetCount failures (an unnamed cuInit result by number), the
 * CUBIND_DRIVER_LIBRARY override, and the pre-12.0 module path (cuModuleLoadData) of an old
 * driver.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

/* In the child: print what went wrong and exit 1. */
#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond,     \
              cubind_last_error());                                                                \
      fflush(stderr);                                                                              \
      _exit(1);                                                                                    \
    }                                                                                              \
  } while (0)
#define CHECK_CONTAINS(text) CHECK(strstr(cubind_last_error(), (text)) != NULL)

static void run_in_child(void (*body)(void)) {
  int status = 0;
  pid_t pid;
  fflush(NULL);
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    body();
    fflush(NULL);
    _exit(0);
  }
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static void body_no_driver(void) {
  float x = 1.0f;
  void *p = &x;
  cubind_config cfg = cubind_config_1d(1, 1);
  CHECK(cubind_set_driver_library("/nonexistent/libcuda.so.1") == CUBIND_SUCCESS);
  CHECK(cubind_init() == CUBIND_ERROR_NO_DRIVER);
  CHECK_CONTAINS("cubind_init: cannot load the CUDA driver library '/nonexistent/libcuda.so.1'");
  CHECK_CONTAINS("No such file"); /* dlerror's reason */
  /* Every later call fails alike, naming itself. */
  CHECK(cubind_malloc(&p, 16) == CUBIND_ERROR_NO_DRIVER);
  CHECK_CONTAINS("cubind_malloc: cannot load the CUDA driver library");
  CHECK(p == NULL);
  CHECK(doublify_launch(&cfg, &x, 1) == CUBIND_ERROR_NO_DRIVER);
  CHECK_CONTAINS("doublify_launch: kernel 'doublify' (module vec) grid=(1,1,1)");
  CHECK(doublify_call(&cfg, &x, 1) == CUBIND_ERROR_NO_DRIVER);
  CHECK(cubind_synchronize() == CUBIND_ERROR_NO_DRIVER);
  CHECK(cubind_preload() == CUBIND_ERROR_NO_DRIVER);
  CHECK(cubind_release_scratch() == CUBIND_SUCCESS); /* nothing to release */
  CHECK(cubind_set_driver_library(FAKE_CUDA_PATH) == CUBIND_ERROR_INVALID_VALUE);
}

static void body_env_no_driver(void) {
  setenv("CUBIND_DRIVER_LIBRARY", "/nonexistent/env/libcuda.so", 1);
  CHECK(cubind_init() == CUBIND_ERROR_NO_DRIVER);
  CHECK_CONTAINS("'/nonexistent/env/libcuda.so'");
}

static void body_env_override(void) {
  int count = 0;
  setenv("CUBIND_DRIVER_LIBRARY", FAKE_CUDA_PATH, 1);
  setenv("FAKE_CUDA_DEVICES", "3", 1);
  CHECK(cubind_device_count(&count) == CUBIND_SUCCESS);
  CHECK(count == 3);
}

/* A library that is no CUDA driver at all: said so, not "older than CUDA 11.3". */
static void body_not_a_driver(void) {
  CHECK(cubind_set_driver_library("libm.so.6") == CUBIND_SUCCESS);
  CHECK(cubind_init() == CUBIND_ERROR_NO_DRIVER);
  CHECK_CONTAINS("'libm.so.6' is not a CUDA driver library: it has neither cuGetProcAddress nor "
                 "cuInit");
  CHECK_CONTAINS("the path came from cubind_set_driver_library");
}

/* A driver older than 11.3: cuInit and cuDriverGetVersion but no cuGetProcAddress. */
static void body_driver_before_11_3(void) {
  CHECK(cubind_set_driver_library(FAKE_OLD_CUDA_PATH) == CUBIND_SUCCESS);
  CHECK(cubind_init() == CUBIND_ERROR_DRIVER_TOO_OLD);
  CHECK_CONTAINS("is version 11.2, older than CUDA 11.3, the first with cuGetProcAddress");
}

/* The toolkit's stub libcuda.so (the fake playing it): not "too old", but what it is. */
static void body_stub_library(void) {
  setenv("FAKE_CUDA_STUB", "1", 1);
  setenv("CUBIND_DRIVER_LIBRARY", FAKE_CUDA_PATH, 1);
  CHECK(cubind_init() == CUBIND_ERROR_NO_DRIVER);
  CHECK_CONTAINS("is the CUDA toolkit's stub libcuda.so, not the driver (cuGetProcAddress "
                 "returned CUDA_ERROR_STUB_LIBRARY)");
  CHECK_CONTAINS("lib64/stubs");
  CHECK_CONTAINS("the path came from CUBIND_DRIVER_LIBRARY");
  CHECK(cubind_synchronize() == CUBIND_ERROR_NO_DRIVER); /* remembered */
  CHECK_CONTAINS("cubind_synchronize: '");
}

/* A stub whose entry points resolve but whose cuInit says CUDA_ERROR_STUB_LIBRARY. */
static void body_stub_cuinit(void) {
  setenv("FAKE_CUDA_STUB", "init", 1);
  CHECK(cubind_set_driver_library(FAKE_CUDA_PATH) == CUBIND_SUCCESS);
  CHECK(cubind_init() == CUBIND_ERROR_NO_DRIVER);
  CHECK_CONTAINS("stub libcuda.so, not the driver (cuInit returned CUDA_ERROR_STUB_LIBRARY)");
}

/* The toolkit's own stub, when this machine has one (skipped otherwise). */
static void body_toolkit_stub(void) {
#ifdef CUDA_STUB_LIBRARY
  if (access(CUDA_STUB_LIBRARY, R_OK) != 0) return;
  CHECK(cubind_set_driver_library(CUDA_STUB_LIBRARY) == CUBIND_SUCCESS);
  CHECK(cubind_init() == CUBIND_ERROR_NO_DRIVER);
  CHECK_CONTAINS("is the CUDA toolkit's stub libcuda.so, not the driver");
#endif
}

static void body_missing_entry_point(void) {
  setenv("FAKE_CUDA_HIDE", "cuLaunchKernel", 1);
  CHECK(cubind_set_driver_library(FAKE_CUDA_PATH) == CUBIND_SUCCESS);
  CHECK(cubind_init() == CUBIND_ERROR_DRIVER_TOO_OLD);
  CHECK_CONTAINS("lacks cuLaunchKernel (CUDA 4.0 API)");
}

static void body_cuinit_no_device(void) {
  CHECK(cubind_set_driver_library(FAKE_CUDA_PATH) == CUBIND_SUCCESS);
  fake_cuda_fail("cuInit", 1, CUDA_ERROR_NO_DEVICE, 0);
  CHECK(cubind_init() == CUBIND_ERROR_NO_DEVICE);
  CHECK_CONTAINS("no CUDA device");
  CHECK_CONTAINS("CUDA_ERROR_NO_DEVICE");
  CHECK(cubind_stream_synchronize(NULL) == CUBIND_ERROR_NO_DEVICE); /* remembered */
  CHECK(fake_cuda_calls("cuInit") == 1);
}

static void body_cuinit_other_failure(void) {
  CHECK(cubind_set_driver_library(FAKE_CUDA_PATH) == CUBIND_SUCCESS);
  fake_cuda_fail("cuInit", 1, CUDA_ERROR_UNKNOWN, 0);
  CHECK(cubind_init() == CUBIND_ERROR_NO_DRIVER);
  CHECK_CONTAINS("cuInit failed");
  CHECK_CONTAINS("CUDA_ERROR_UNKNOWN (unknown error)");
}

/* A cuInit result the driver has no name for: reported by number. */
static void body_cuinit_unnamed_failure(void) {
  CHECK(cubind_set_driver_library(FAKE_CUDA_PATH) == CUBIND_SUCCESS);
  fake_cuda_fail("cuInit", 1, (CUresult)4242, 0);
  CHECK(cubind_init() == CUBIND_ERROR_NO_DRIVER);
  CHECK_CONTAINS("cuInit failed");
  CHECK_CONTAINS("CUDA error 4242");
}

static void body_device_count_failure(void) {
  CHECK(cubind_set_driver_library(FAKE_CUDA_PATH) == CUBIND_SUCCESS);
  fake_cuda_fail("cuDeviceGetCount", 1, CUDA_ERROR_UNKNOWN, 0);
  CHECK(cubind_init() == CUBIND_ERROR_NO_DEVICE);
  CHECK_CONTAINS("cuDeviceGetCount failed");
}

/* An 11.8 driver: no cuFuncGetParamInfo: modules as everywhere, and no ABI check. */
static void body_old_driver_no_abi_check(void) {
  static const cubind_param_info params[] = {{"a", 0, 8}, {"n", 8, 4}};
  static const cubind_kernel_info kernels[] = {{"mismatch", "mismatch", params, 2}};
  static const cubind_kernel_info missing[] = {{"gone", "gone", params, 2}};
  cubind_module *mismatch, *gone;
  float a[100];
  float *dev = NULL;
  int i, n = 0;
  void *args[2] = {&dev, &n};
  cubind_config cfg = cubind_config_1d(100, 64);
  setenv("FAKE_CUDA_VERSION", "11080", 1);
  use_fake_driver();
  mismatch = fresh_module(kernels, 1);
  mismatch->name = "old";
  gone = fresh_module(missing, 1);
  gone->name = "gone";
  for (i = 0; i < 100; i++)
    a[i] = (float)i;
  CHECK(doublify_call(&cfg, a, 100) == CUBIND_SUCCESS);
  CHECK(a[99] == 198.0f);
  CHECK(fake_cuda_calls("cuModuleLoadData") == 1);
  CHECK(fake_cuda_calls("cuFuncGetParamInfo") == 0);
  CHECK(cubind_module_launch(mismatch, 0, &cfg, args) == CUBIND_SUCCESS);
  /* A missing kernel unloads the module again. */
  CHECK(cubind_module_launch(gone, 0, &cfg, args) == CUBIND_ERROR_KERNEL_NOT_FOUND);
  CHECK_CONTAINS("cuModuleGetFunction failed for kernel 'gone'");
  CHECK(fake_cuda_calls("cuModuleUnload") == 1);
  CHECK(fake_cuda_live_images() == 2); /* vec's image and mismatch's */
  fake_cuda_fail("cuModuleLoadData", 1, CUDA_ERROR_INVALID_IMAGE, 0);
  CHECK(cubind_module_launch(gone, 0, &cfg, args) == CUBIND_ERROR_MODULE_LOAD);
  CHECK_CONTAINS("cuModuleLoadData failed loading module gone on device 0");
  CHECK_CONTAINS("CUDA_ERROR_INVALID_IMAGE");
  CHECK(cubind_release_scratch() == CUBIND_SUCCESS);
}

static void no_driver(void **state) {
  (void)state;
  run_in_child(body_no_driver);
}
static void env_no_driver(void **state) {
  (void)state;
  run_in_child(body_env_no_driver);
}
static void env_override(void **state) {
  (void)state;
  run_in_child(body_env_override);
}
static void not_a_driver(void **state) {
  (void)state;
  run_in_child(body_not_a_driver);
}
static void driver_before_11_3(void **state) {
  (void)state;
  run_in_child(body_driver_before_11_3);
}
static void stub_library(void **state) {
  (void)state;
  run_in_child(body_stub_library);
}
static void stub_cuinit(void **state) {
  (void)state;
  run_in_child(body_stub_cuinit);
}
static void toolkit_stub(void **state) {
  (void)state;
  run_in_child(body_toolkit_stub);
}
static void missing_entry_point(void **state) {
  (void)state;
  run_in_child(body_missing_entry_point);
}
static void cuinit_no_device(void **state) {
  (void)state;
  run_in_child(body_cuinit_no_device);
}
static void cuinit_other_failure(void **state) {
  (void)state;
  run_in_child(body_cuinit_other_failure);
}
static void cuinit_unnamed_failure(void **state) {
  (void)state;
  run_in_child(body_cuinit_unnamed_failure);
}
static void device_count_failure(void **state) {
  (void)state;
  run_in_child(body_device_count_failure);
}
static void old_driver_no_abi_check(void **state) {
  (void)state;
  run_in_child(body_old_driver_no_abi_check);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(no_driver),
      cmocka_unit_test(env_no_driver),
      cmocka_unit_test(env_override),
      cmocka_unit_test(not_a_driver),
      cmocka_unit_test(driver_before_11_3),
      cmocka_unit_test(stub_library),
      cmocka_unit_test(stub_cuinit),
      cmocka_unit_test(toolkit_stub),
      cmocka_unit_test(missing_entry_point),
      cmocka_unit_test(cuinit_no_device),
      cmocka_unit_test(cuinit_other_failure),
      cmocka_unit_test(cuinit_unnamed_failure),
      cmocka_unit_test(device_count_failure),
      cmocka_unit_test(old_driver_no_abi_check),
  };
  cubind_fatbin_vec_size = build_fatbin(cubind_fatbin_vec, sizeof cubind_fatbin_vec);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
