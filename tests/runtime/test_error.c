/*
 * test_error.c (runtime/src/error.c): status names and strings, the per-thread last error and
 * the error hook.
 */
#include "test_support.h"

static void status_table(void **state) {
  (void)state;
  assert_string_equal(cubind_status_name(CUBIND_ERROR_LAUNCH), "CUBIND_ERROR_LAUNCH");
  assert_string_equal(cubind_status_string(CUBIND_SUCCESS), "success");
  assert_string_equal(cubind_status_name((cubind_status)999), "CUBIND_UNKNOWN_STATUS");
  assert_string_equal(cubind_status_string((cubind_status)999), "unknown cubind status");
  assert_string_equal(cubind_status_string(CUBIND_ERROR_SIZE_OVERFLOW),
                      "element count times element size overflows size_t");
}

static int hook_calls;
static cubind_status hook_status;
static char hook_message[256];

static void hook(cubind_status status, const char *message, void *user_data) {
  hook_calls++;
  hook_status = status;
  snprintf(hook_message, sizeof hook_message, "%s", message);
  assert_ptr_equal(user_data, &hook_calls);
}

/* The hook sees every failure, with the full message, before the call returns; NULL removes it. */
static void error_hook(void **state) {
  (void)state;
  hook_calls = 0;
  cubind_set_error_hook(hook, &hook_calls);
  assert_int_equal(cubind_set_device(-1), CUBIND_ERROR_INVALID_DEVICE);
  assert_int_equal(hook_calls, 1);
  assert_int_equal(hook_status, CUBIND_ERROR_INVALID_DEVICE);
  assert_string_equal(hook_message, cubind_last_error());
  assert_contains(hook_message, "cubind_set_device: device -1 does not exist");
  cubind_set_error_hook(NULL, NULL);
  assert_int_equal(cubind_set_device(-1), CUBIND_ERROR_INVALID_DEVICE);
  assert_int_equal(hook_calls, 1);
}

static cubind_status fail_on_this_thread(void *arg) {
  (void)arg;
  return cubind_malloc(NULL, 4);
}

/* The last error is the calling thread's: another thread's failure does not touch it. */
static void last_error_per_thread(void **state) {
  outcome o;
  (void)state;
  assert_int_equal(cubind_set_device(99), CUBIND_ERROR_INVALID_DEVICE);
  o = in_new_thread(fail_on_this_thread, NULL);
  assert_int_equal(o.status, CUBIND_ERROR_INVALID_VALUE);
  assert_contains(o.message, "cubind_malloc: dev_ptr is NULL");
  assert_contains(cubind_last_error(), "device 99 does not exist");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(status_table, test_setup),
      cmocka_unit_test_setup(error_hook, test_setup),
      cmocka_unit_test_setup(last_error_per_thread, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 4);
}
