/*
 * test_timer.c (runtime/src/timer.c): the event pair around GPU work on a stream, and a failure
 * injected into each of its driver calls (a failed destroy keeps the event for a retry).
 */
#include "test_support.h"

static void timer_api(void **state) {
  cubind_timer timer;
  float ms = -1.0f;
  CUstream s = NULL;
  (void)state;
  assert_int_equal(cubind_stream_create(&s), CUBIND_SUCCESS);
  assert_int_equal(cubind_timer_create(&timer), CUBIND_SUCCESS);
  assert_int_equal(cubind_timer_start(&timer, s), CUBIND_SUCCESS);
  assert_int_equal(cubind_timer_stop(&timer, &ms), CUBIND_SUCCESS);
  assert_true(ms >= 0.0f);
  assert_int_equal(cubind_timer_stop(&timer, NULL), CUBIND_ERROR_INVALID_VALUE);
  assert_int_equal(cubind_timer_destroy(&timer), CUBIND_SUCCESS);
  assert_int_equal(cubind_timer_destroy(&timer), CUBIND_SUCCESS); /* zeroed: no-op */
  assert_int_equal(cubind_timer_start(&timer, s), CUBIND_ERROR_INVALID_VALUE);
  assert_int_equal(cubind_timer_create(NULL), CUBIND_ERROR_INVALID_VALUE);
  assert_int_equal(cubind_stream_destroy(s), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_events() + fake_cuda_live_streams(), 0);
}

static cubind_status scenario_timer(void *arg) {
  cubind_timer t;
  float ms;
  cubind_status status, destroyed;
  if (arg) return cubind_timer_create(&t); /* fails: nothing to destroy */
  if (cubind_timer_create(&t) != CUBIND_SUCCESS) return CUBIND_ERROR_CUDA;
  status = cubind_timer_start(&t, NULL);
  if (status == CUBIND_SUCCESS) status = cubind_timer_stop(&t, &ms);
  destroyed = cubind_timer_destroy(&t);
  if (destroyed != CUBIND_SUCCESS && cubind_timer_destroy(&t) != CUBIND_SUCCESS)
    return CUBIND_ERROR_CUDA; /* the retry frees what the failed call kept */
  return status != CUBIND_SUCCESS ? status : destroyed;
}

static void every_timer_call_fails_cleanly(void **state) {
  static const injection cases[] = {
      {"cuEventCreate", CUDA_ERROR_INVALID_VALUE, scenario_timer, "create", CUBIND_ERROR_STREAM,
       {"cubind_timer_create"}, 0},
      {"cuEventRecord", CUDA_ERROR_INVALID_HANDLE, scenario_timer, NULL, CUBIND_ERROR_STREAM,
       {"cubind_timer_start"}, 0},
      {"cuEventSynchronize", CUDA_ERROR_LAUNCH_FAILED, scenario_timer, NULL,
       CUBIND_ERROR_KERNEL_FAULT, {"cubind_timer_stop"}, 0},
      {"cuEventElapsedTime", CUDA_ERROR_INVALID_HANDLE, scenario_timer, NULL, CUBIND_ERROR_STREAM,
       {"cubind_timer_stop"}, 0},
      {"cuEventDestroy", CUDA_ERROR_INVALID_HANDLE, scenario_timer, NULL, CUBIND_ERROR_STREAM,
       {"cubind_timer_destroy"}, 0},
  };
  (void)state;
  run_injections(cases, sizeof cases / sizeof cases[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(timer_api, test_setup),
      cmocka_unit_test_setup(every_timer_call_fails_cleanly, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 1);
}
