/*
 * test_launch.c (runtime/src/launch.c): launches (the fast path after the first), the argument
 * and configuration checks with their messages, launches with attributes (clusters, cooperative)
 * through cuLaunchKernelEx, and cuLaunchKernel's failures.
 */
#include "test_support.h"

static void launch_round_trip(void **state) {
  float host[1000], *dev = NULL;
  cubind_config cfg = cubind_config_1d(1000, 256);
  int i;
  (void)state;
  for (i = 0; i < 1000; i++)
    host[i] = (float)i;
  assert_int_equal(cubind_malloc((void **)&dev, sizeof host), CUBIND_SUCCESS);
  assert_int_equal(cubind_to_device(dev, host, sizeof host), CUBIND_SUCCESS);
  assert_int_equal(doublify_launch(&cfg, dev, 1000), CUBIND_SUCCESS);
  assert_int_equal(cubind_synchronize(), CUBIND_SUCCESS);
  assert_int_equal(cubind_from_device(host, dev, sizeof host), CUBIND_SUCCESS);
  for (i = 0; i < 1000; i++)
    assert_true(host[i] == 2.0f * (float)i);
  assert_int_equal(cubind_memset_d8(dev, 0, sizeof host), CUBIND_SUCCESS);
  assert_int_equal(cubind_from_device(host, dev, sizeof host), CUBIND_SUCCESS);
  assert_true(host[999] == 0.0f);
  assert_int_equal(cubind_free(dev), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_device_allocations(), 0);
}

static void launch_config_checks(void **state) {
  static const struct {
    cubind_config cfg;
    unsigned kernel;
    const char *expect;
  } cases[] = {
      {{{0, 1, 1}, {32, 1, 1}, 0, NULL, {0, 0, 0}, 0}, 0, "grid.x is 0"},
      {{{1, 1, 1}, {32, 0, 1}, 0, NULL, {0, 0, 0}, 0}, 0, "block.y is 0"},
      {{{1, 1, 1}, {2048, 1, 1}, 0, NULL, {0, 0, 0}, 0}, 0, "block.x=2048 exceeds device 0's maximum of 1024"},
      {{{1, 70000, 1}, {32, 1, 1}, 0, NULL, {0, 0, 0}, 0}, 0, "grid.y=70000 exceeds device 0's maximum of 65535"},
      {{{1, 1, 1}, {32, 32, 2}, 0, NULL, {0, 0, 0}, 0},
       0,
       "a block of 2048 threads exceeds the kernel's maximum of 1024"},
      {{{1, 1, 1}, {256, 1, 1}, 0, NULL, {0, 0, 0}, 0},
       2,
       "a block of 256 threads exceeds the kernel's maximum of 128"},
      {{{1, 1, 1}, {32, 1, 1}, 200000, NULL, {0, 0, 0}, 0},
       0,
       "200000 bytes of dynamic shared memory exceed the 100352 bytes"},
  };
  size_t i;
  float *dev = NULL;
  int n = 0;
  void *args[2] = {&dev, &n};
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char dims[128];
    const cubind_config *c = &cases[i].cfg;
    assert_int_equal(cubind_module_launch(&vec_module, cases[i].kernel, c, args),
                     CUBIND_ERROR_INVALID_CONFIG);
    assert_contains(cubind_last_error(), cases[i].expect);
    snprintf(dims, sizeof dims, "grid=(%u,%u,%u) block=(%u,%u,%u) shared=%u", c->grid.x, c->grid.y,
             c->grid.z, c->block.x, c->block.y, c->block.z, c->shared_bytes);
    assert_contains(cubind_last_error(), dims);
    assert_contains(cubind_last_error(), vec_kernels[cases[i].kernel].name);
  }
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), 0);
  /* A kernel of a very long C name (a template's) still gets the dims and the reason into the
     message (the name, printed twice, pushed them out of it). */
  {
    static char long_name[400];
    static cubind_kernel_info long_kernels[1];
    cubind_config zero = {{0, 1, 1}, {32, 1, 1}, 0, NULL, {0, 0, 0}, 0};
    memset(long_name, 'k', sizeof long_name - 1);
    long_kernels[0] = vec_kernels[0];
    long_kernels[0].name = long_name;
    assert_int_equal(cubind_module_launch(fresh_module(long_kernels, 1), 0, &zero, args),
                     CUBIND_ERROR_INVALID_CONFIG);
    assert_contains(cubind_last_error(), "grid=(0,1,1) block=(32,1,1) shared=0");
    assert_contains(cubind_last_error(), "grid.x is 0");
  }
  /* The most a kernel may have (opt-in limit minus its static 1 KiB) is accepted. */
  {
    cubind_config ok = {{1, 1, 1}, {32, 1, 1}, 101376 - 1024, NULL, {0, 0, 0}, 0};
    assert_int_equal(cubind_module_launch(&vec_module, 0, &ok, args), CUBIND_SUCCESS);
  }
}

static void argument_checks(void **state) {
  cubind_config cfg = cubind_config_1d(64, 32);
  float *dev = NULL;
  int n = 0;
  void *args[2] = {&dev, &n};
  (void)state;
  assert_int_equal(cubind_module_launch(&vec_module, 9, &cfg, args), CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "cubind_module_launch: no such kernel (module vec, kernel "
                                       "index 9 of 3)");
  assert_int_equal(cubind_module_launch(&vec_module, 0, NULL, args), CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "cfg is NULL");
  assert_int_equal(cubind_module_launch(NULL, 0, &cfg, args), CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "module is NULL");
  assert_int_equal(cubind_module_launch(&vec_module, 0, &cfg, NULL), CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "args is NULL for kernel 'doublify' (module vec), which "
                                       "has 2 parameters");
  assert_int_equal(cubind_module_launch(&vec_module, 1, &cfg, NULL), CUBIND_SUCCESS); /* noop */
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), 1);
}

/* Cluster and cooperative launches go through cuLaunchKernelEx after the runtime's checks. */
static void launch_attributes(void **state) {
  float host[1024];
  cubind_config cfg = cubind_config_1d(1024, 128);
  unsigned long ex, plain;
  int i;
  (void)state;
  for (i = 0; i < 1024; i++)
    host[i] = (float)i;
  cfg.cluster.x = 2;
  ex = fake_cuda_calls("cuLaunchKernelEx");
  assert_int_equal(doublify_call(&cfg, host, 1024), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuLaunchKernelEx"), ex + 1);
  for (i = 0; i < 1024; i++)
    assert_true(host[i] == 2.0f * (float)i);
  cfg.cluster.x = 3; /* 8 blocks */
  assert_int_equal(doublify_call(&cfg, host, 1024), CUBIND_ERROR_INVALID_CONFIG);
  assert_contains(cubind_last_error(), "grid.x=8 is not a multiple of the cluster's x dimension 3");
  cfg.cluster.x = 0;
  cfg.flags = 0x80;
  assert_int_equal(doublify_call(&cfg, host, 1024), CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "unknown launch flags 0x80");
  cfg.flags = CUBIND_LAUNCH_COOPERATIVE;
  assert_int_equal(doublify_call(&cfg, host, 1024), CUBIND_SUCCESS);
  cfg.flags = 0; /* a plain config stays on cuLaunchKernel */
  ex = fake_cuda_calls("cuLaunchKernelEx");
  plain = fake_cuda_calls("cuLaunchKernel");
  assert_int_equal(doublify_call(&cfg, host, 1024), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuLaunchKernelEx"), ex);
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), plain + 1);
}

static cubind_status scenario_launch_loaded(void *arg) {
  cubind_config cfg = {{4, 1, 1}, {256, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  (void)arg;
  return doublify_launch(&cfg, NULL, 0);
}

static void launch_failures(void **state) {
  static const injection cases[] = {
      /* the first launch of a fresh module: its image stays loaded after the launch failed */
      {"cuLaunchKernel", CUDA_ERROR_INVALID_VALUE, scenario_load_and_launch, NULL,
       CUBIND_ERROR_LAUNCH,
       {LAUNCH_TEXT, "cuLaunchKernel failed for kernel 'doublify' (module vec) grid=(4,1,1) "
                     "block=(256,1,1) shared=0 stream=0x0"},
       1},
      {"cuLaunchKernel", CUDA_ERROR_ILLEGAL_ADDRESS, scenario_load_and_launch, NULL,
       CUBIND_ERROR_KERNEL_FAULT, {LAUNCH_TEXT}, 1},
      {"cuLaunchKernel", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, scenario_load_and_launch, NULL,
       CUBIND_ERROR_INVALID_CONFIG, {LAUNCH_TEXT}, 1},
      /* a loaded module's launch on a fresh thread */
      {"cuLaunchKernel", CUDA_ERROR_INVALID_VALUE, scenario_launch_loaded, NULL,
       CUBIND_ERROR_LAUNCH, {LAUNCH_TEXT}, 0},
  };
  (void)state;
  assert_int_equal(doublify_launch(&(cubind_config){{1, 1, 1}, {1, 1, 1}, 0, NULL, {0, 0, 0}, 0},
                                   NULL, 0),
                   CUBIND_SUCCESS); /* vec loaded */
  run_injections(cases, sizeof cases / sizeof cases[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(launch_round_trip, test_setup),
      cmocka_unit_test_setup(launch_config_checks, test_setup),
      cmocka_unit_test_setup(argument_checks, test_setup),
      cmocka_unit_test_setup(launch_attributes, test_setup),
      cmocka_unit_test_setup(launch_failures, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 4);
}
