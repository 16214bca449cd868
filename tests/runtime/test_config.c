/*
 * test_config.c (runtime/src/config.c): cubind_config_1d.
 */
#include "test_support.h"

static void config_1d(void **state) {
  cubind_config c = cubind_config_1d(1000, 256);
  (void)state;
  assert_int_equal(c.grid.x, 4);
  assert_int_equal(c.block.x, 256);
  assert_int_equal(c.grid.y * c.grid.z * c.block.y * c.block.z, 1);
  assert_int_equal(c.shared_bytes, 0);
  assert_null(c.stream);
  assert_int_equal(c.cluster.x | c.cluster.y | c.cluster.z | c.flags, 0);
  assert_int_equal(cubind_config_1d(1024, 256).grid.x, 4);
  assert_int_equal(cubind_config_1d(1025, 256).grid.x, 5);
  assert_int_equal(cubind_config_1d(0, 128).grid.x, 1);
  assert_int_equal(cubind_config_1d(SIZE_MAX, 1).grid.x, 0xFFFFFFFFu); /* out of range, kept */
  /* A block of 0 makes a config the launch rejects. */
  c = cubind_config_1d(10, 0);
  assert_int_equal(c.block.x, 0);
  assert_int_equal(noop_launch(&c), CUBIND_ERROR_INVALID_CONFIG);
  assert_contains(cubind_last_error(), "block.x is 0");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(config_1d, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 1);
}
