/*
 * test_context.c (runtime/src/context.c): devices, the calling thread's context (an
 * application's own context is kept; else the selected device's primary one), and a failure
 * injected into each context call.
 */
#include "test_support.h"

static void devices(void **state) {
  int count = 0, device = -1;
  (void)state;
  assert_int_equal(cubind_device_count(&count), CUBIND_SUCCESS);
  assert_int_equal(count, 4); /* FAKE_CUDA_DEVICES */
  assert_int_equal(cubind_get_device(&device), CUBIND_SUCCESS);
  assert_int_equal(device, 0);
  assert_int_equal(cubind_set_device(7), CUBIND_ERROR_INVALID_DEVICE);
  assert_contains(cubind_last_error(), "device 7 does not exist (4 devices visible)");
  assert_int_equal(cubind_set_device(3), CUBIND_SUCCESS);
  assert_int_equal(cubind_get_device(&device), CUBIND_SUCCESS);
  assert_int_equal(device, 3);
  assert_int_equal(cubind_set_device(0), CUBIND_SUCCESS);
  assert_int_equal(cubind_get_device(NULL), CUBIND_ERROR_INVALID_VALUE);
  assert_int_equal(cubind_set_driver_library("/elsewhere"), CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "already loaded");
}

static cubind_status user_context_device(void *arg) {
  int device = -1;
  cubind_status status;
  (void)arg;
  fake_cuda_make_current(2);
  status = cubind_get_device(&device);
  if (status == CUBIND_SUCCESS && device != 2) return CUBIND_ERROR_CUDA;
  if (status != CUBIND_SUCCESS) return status;
  /* vec is loaded on device 2 by nobody yet: it loads in this (the application's) context */
  return launch_first_kernel((void *)&vec_module);
}

static cubind_status primary_context_on_device_2(void *arg) {
  (void)arg;
  if (cubind_set_device(2) != CUBIND_SUCCESS) return CUBIND_ERROR_CUDA;
  return launch_first_kernel((void *)&vec_module);
}

/* An application's context is used as it is; a second context on the device is refused. */
static void application_contexts(void **state) {
  outcome o;
  (void)state;
  o = in_new_thread(user_context_device, NULL);
  assert_int_equal(o.status, CUBIND_SUCCESS);
  o = in_new_thread(primary_context_on_device_2, NULL);
  assert_int_equal(o.status, CUBIND_ERROR_CONTEXT);
  assert_contains(o.message, "module vec was loaded on device 2 in another context");
  assert_contains(o.message, "doublify_launch: kernel 'doublify' (module vec)");
}

static cubind_status scenario_device(void *arg) {
  int d;
  (void)arg;
  fake_cuda_make_current(1);
  return cubind_get_device(&d);
}

static cubind_status scenario_set_device_1(void *arg) { /* device 1: no primary context yet */
  (void)arg;
  return cubind_set_device(1);
}

static void every_context_call_fails_cleanly(void **state) {
  static const injection cases[] = {
      {"cuCtxGetCurrent", CUDA_ERROR_INVALID_CONTEXT, scenario_load_and_launch, NULL,
       CUBIND_ERROR_CONTEXT, {LAUNCH_TEXT}, 0},
      {"cuCtxSetCurrent", CUDA_ERROR_UNKNOWN, scenario_load_and_launch, NULL,
       CUBIND_ERROR_CONTEXT, {LAUNCH_TEXT}, 0},
      {"cuCtxGetDevice", CUDA_ERROR_INVALID_CONTEXT, scenario_device, NULL, CUBIND_ERROR_CONTEXT,
       {"cubind_get_device"}, 0},
      {"cuDeviceGet", CUDA_ERROR_UNKNOWN, scenario_device, NULL, CUBIND_ERROR_CONTEXT,
       {"cubind_get_device"}, 0},
      {"cuDevicePrimaryCtxRetain", CUDA_ERROR_UNKNOWN, scenario_set_device_1, NULL,
       CUBIND_ERROR_CONTEXT, {"cubind_set_device", "device 1"}, 0},
  };
  (void)state;
  run_injections(cases, sizeof cases / sizeof cases[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(devices, test_setup),
      cmocka_unit_test_setup(application_contexts, test_setup),
      cmocka_unit_test_setup(every_context_call_fails_cleanly, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 4);
}
