/*
 * test_slots.c (runtime/src/slots.c): a module's runtime state: none until its first use, then
 * one allocation that the launch path reads without a lock; modules this runtime cannot use
 * (generated for another ABI, or without state) are refused wherever they are used.
 */
#include "test_support.h"

static void state_on_first_use(void **state) {
  cubind_module *m = fresh_module(vec_kernels, 3);
  void *runtime;
  (void)state;
  assert_null(m->state->runtime);
  assert_int_equal(launch_kernel(m, 1), CUBIND_SUCCESS);
  runtime = m->state->runtime;
  assert_non_null(runtime);
  assert_int_equal((uintptr_t)runtime % 64, 0); /* the kernel slots start on a cache line */
  assert_int_equal(launch_kernel(m, 0), CUBIND_SUCCESS);
  assert_ptr_equal(m->state->runtime, runtime); /* allocated once */
  assert_null(m->state->next);                  /* not registered */
}

static void foreign_modules(void **state) {
  static const cubind_global_info globals[] = {{"coeffs", "coeffs"}};
  cubind_module *m = fresh_module(vec_kernels, 3), *stateless = fresh_module(vec_kernels, 3);
  cubind_kernel_attributes attributes;
  double value = 1.0;
  (void)state;
  m->abi_version = 99;
  m->globals = globals;
  m->num_globals = 1;
  assert_int_equal(launch_first_kernel(m), CUBIND_ERROR_VERSION_MISMATCH);
  assert_contains(cubind_last_error(), "doublify_launch: kernel 'doublify' (module vec)");
  assert_contains(cubind_last_error(), "module vec was generated for cubind ABI 99 but this "
                                       "runtime has ABI");
  assert_contains(cubind_last_error(), "regenerate it");
  assert_int_equal(cubind_module_global_copy(m, 0, &value, 1, sizeof value,
                                             CUBIND_COPY_TO_DEVICE),
                   CUBIND_ERROR_VERSION_MISMATCH);
  assert_contains(cubind_last_error(), "vec_coeffs_to_device: module vec was generated for "
                                       "cubind ABI 99");
  assert_int_equal(cubind_module_kernel_attributes(m, 0, &attributes),
                   CUBIND_ERROR_VERSION_MISMATCH);
  assert_null(m->state->runtime); /* nothing allocated for it */
  stateless->state = NULL;
  assert_int_equal(launch_first_kernel(stateless), CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "module vec has no state");
  assert_int_equal(fake_cuda_calls("cuModuleLoadData"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(state_on_first_use, test_setup),
      cmocka_unit_test_setup(foreign_modules, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 2);
}
