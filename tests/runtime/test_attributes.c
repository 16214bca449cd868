/*
 * test_attributes.c (runtime/src/attributes.c): per-kernel facts behind <kernel>_attributes and
 * <kernel>_config_occupancy, from the fake driver's answers.
 */
#include "test_support.h"

static void kernel_attributes(void **state) {
  cubind_kernel_attributes a;
  (void)state;
  memset(&a, 0x55, sizeof a);
  assert_int_equal(cubind_module_kernel_attributes(&vec_module, 2, &a), CUBIND_SUCCESS);
  assert_int_equal(a.num_regs, 16);
  assert_int_equal(a.static_shared_bytes, 1024);
  assert_int_equal(a.local_bytes, 0);
  assert_int_equal(a.const_bytes, 0);
  assert_int_equal(a.max_threads_per_block, 128); /* "small" */
  assert_int_equal(a.max_dynamic_shared_bytes, 101376 - 1024);
  assert_int_equal(a.ptx_version, 80);
  assert_int_equal(a.binary_version, 80);
  assert_int_equal(a.occupancy_block_size, 128);
  assert_int_equal(a.occupancy_min_grid_size, 108 * 16);
  assert_int_equal(a.cluster_dims[0] | a.cluster_dims[1] | a.cluster_dims[2], 0);
  /* the kernel was resolved by the query: its launch needs no resolution */
  fake_cuda_reset();
  assert_int_equal(launch_kernel(&vec_module, 2), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuModuleGetFunction"), 0);
  assert_int_equal(cubind_module_kernel_attributes(&vec_module, 2, NULL),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "small_attributes: out is NULL");
  assert_int_equal(cubind_module_kernel_attributes(&vec_module, 7, &a), CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "no such kernel");
  fake_cuda_fail("cuFuncGetAttribute", 1, CUDA_ERROR_UNKNOWN, 0);
  assert_int_equal(cubind_module_kernel_attributes(&vec_module, 2, &a), CUBIND_ERROR_CUDA);
  assert_contains(cubind_last_error(), "small_attributes: cuFuncGetAttribute(NUM_REGS) failed: "
                                       "CUDA_ERROR_UNKNOWN");
}

static void config_occupancy(void **state) {
  cubind_config cfg;
  (void)state;
  assert_int_equal(cubind_module_config_occupancy(&vec_module, 0, 1000000, 0, &cfg),
                   CUBIND_SUCCESS);
  assert_int_equal(cfg.block.x, 256);
  assert_int_equal(cfg.grid.x, (1000000 + 255) / 256);
  assert_int_equal(cfg.shared_bytes, 0);
  assert_int_equal(cubind_module_config_occupancy(&vec_module, 0, 100, 4096, &cfg),
                   CUBIND_SUCCESS);
  assert_int_equal(cfg.shared_bytes, 4096);
  assert_int_equal(cubind_module_config_occupancy(&vec_module, 0, 100, 200000, &cfg),
                   CUBIND_ERROR_INVALID_CONFIG);
  assert_contains(cubind_last_error(), "doublify_config_occupancy: 200000 bytes of dynamic shared "
                                       "memory exceed the 100352 bytes this kernel can have");
  assert_int_equal(cubind_module_config_occupancy(&vec_module, 0, 100, 0, NULL),
                   CUBIND_ERROR_INVALID_VALUE);
  fake_cuda_fail("cuOccupancyMaxPotentialBlockSize", 1, CUDA_ERROR_UNKNOWN, 0);
  assert_int_equal(cubind_module_config_occupancy(&vec_module, 0, 100, 0, &cfg),
                   CUBIND_ERROR_CUDA);
  assert_contains(cubind_last_error(), "cuOccupancyMaxPotentialBlockSize failed");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(kernel_attributes, test_setup),
      cmocka_unit_test_setup(config_occupancy, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 2);
}
