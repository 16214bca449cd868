/*
 * test_scratch.c (runtime/src/scratch.c): each thread's device scratch for `<kernel>_call`:
 * reused between calls, grown when too small, freed by cubind_release_scratch and with its
 * thread; a failure injected into its allocation and its frees.
 */
#include "test_support.h"

static void scratch_reuse(void **state) {
  float a[3000];
  cubind_config cfg = cubind_config_1d(3000, 128);
  int i;
  (void)state;
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  fake_cuda_reset();
  for (i = 0; i < 3000; i++)
    a[i] = (float)i;
  assert_int_equal(doublify_call(&cfg, a, 3000), CUBIND_SUCCESS);
  for (i = 0; i < 3000; i++)
    assert_true(a[i] == 2.0f * (float)i);
  assert_int_equal(fake_cuda_calls("cuMemAlloc"), 1);
  /* The second call, and a smaller one, reuse the scratch: no allocation, no free. */
  assert_int_equal(doublify_call(&cfg, a, 3000), CUBIND_SUCCESS);
  assert_int_equal(doublify_call(&cfg, a, 10), CUBIND_SUCCESS);
  assert_true(a[0] == 0.0f && a[5] == 40.0f && a[2999] == 4.0f * 2999.0f);
  assert_int_equal(fake_cuda_calls("cuMemAlloc"), 1);
  assert_int_equal(fake_cuda_calls("cuMemFree"), 0);
  assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync"), 3);
  assert_int_equal(fake_cuda_calls("cuMemcpyDtoHAsync"), 3);
  assert_int_equal(fake_cuda_calls("cuStreamSynchronize"), 3);
  assert_int_equal(fake_cuda_live_device_allocations(), 1);
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_device_allocations(), 0);
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS); /* nothing left: a no-op */
}

/* A larger call replaces the arena (grown by at least half); one arena per device. */
static void scratch_growth(void **state) {
  static float a[20000];
  cubind_config cfg = cubind_config_1d(20000, 128);
  (void)state;
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  fake_cuda_reset();
  assert_int_equal(doublify_call(&cfg, a, 1000), CUBIND_SUCCESS);  /* 4096 bytes */
  assert_int_equal(doublify_call(&cfg, a, 1100), CUBIND_SUCCESS);  /* grown by half: 6144 */
  assert_int_equal(doublify_call(&cfg, a, 1200), CUBIND_SUCCESS);  /* fits */
  assert_int_equal(doublify_call(&cfg, a, 20000), CUBIND_SUCCESS); /* grown to 80000 */
  assert_int_equal(fake_cuda_calls("cuMemAlloc"), 3);
  assert_int_equal(fake_cuda_calls("cuMemFree"), 2);
  assert_int_equal(cubind_set_device(1), CUBIND_SUCCESS);
  assert_int_equal(doublify_call(&cfg, a, 100), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_device_allocations(), 2);
  assert_int_equal(cubind_set_device(0), CUBIND_SUCCESS);
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS); /* both, each in its context */
  assert_int_equal(fake_cuda_live_device_allocations(), 0);
}

static cubind_status scenario_call(void *arg) {
  float a[1000] = {0};
  cubind_config cfg = {{4, 1, 1}, {256, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  (void)arg;
  return doublify_call(&cfg, a, 1000);
}

static cubind_status scenario_call_growing(void *arg) {
  static float a[100000];
  cubind_config cfg = {{4, 1, 1}, {256, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  cubind_status status = doublify_call(&cfg, a, 10);
  (void)arg;
  if (status != CUBIND_SUCCESS) return CUBIND_ERROR_CUDA;
  return doublify_call(&cfg, a, 100000);
}

static void every_scratch_call_fails_cleanly(void **state) {
  static const injection cases[] = {
      {"cuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY, scenario_call, NULL, CUBIND_ERROR_OUT_OF_MEMORY,
       {"doublify_call", "cuMemAlloc of 4096 bytes of device scratch failed"}, 0},
      {"cuMemFree", CUDA_ERROR_UNKNOWN, scenario_call_growing, NULL, CUBIND_ERROR_CUDA,
       {"doublify_call", "cuMemFree of the old scratch failed"}, 0},
  };
  (void)state;
  assert_int_equal(launch_first_kernel((void *)&vec_module), CUBIND_SUCCESS); /* vec loaded */
  run_injections(cases, sizeof cases / sizeof cases[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(scratch_reuse, test_setup),
      cmocka_unit_test_setup(scratch_growth, test_setup),
      cmocka_unit_test_setup(every_scratch_call_fails_cleanly, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 4);
}
