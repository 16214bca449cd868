/*
 * test_global.c (runtime/src/global.c): __constant__ / __device__ variables through
 * cubind_module_global_copy (as the generated <module>_<var>_to_device / _from_device call it):
 * looked up once per device, size-checked, one object for every module of a shared image; a
 * failure injected into the lookup and the copies.
 */
#include "test_support.h"

static const cubind_global_info var_globals[] = {{"coeffs", "coeffs"}, {"gone", "gone"}};
static cubind_module_state var_state;
static const cubind_module var_module = {CUBIND_ABI_VERSION, "vars", cubind_fatbin_vec,
                                         &cubind_fatbin_vec_size, vec_kernels, 3, &var_state,
                                         var_globals, 2};

static void module_variables(void **state) {
  double in[9], out[8];
  unsigned long lookups;
  int i;
  (void)state;
  for (i = 0; i < 9; i++)
    in[i] = 1.5 * i;
  assert_int_equal(cubind_module_global_copy(&var_module, 0, in, 8, sizeof(double),
                                             CUBIND_COPY_TO_DEVICE),
                   CUBIND_SUCCESS);
  memset(out, 0, sizeof out);
  assert_int_equal(cubind_module_global_copy(&var_module, 0, out, 8, sizeof(double),
                                             CUBIND_COPY_FROM_DEVICE),
                   CUBIND_SUCCESS);
  for (i = 0; i < 8; i++)
    assert_true(out[i] == 1.5 * i);
  /* looked up once per device: later copies call no lookup */
  lookups = fake_cuda_calls("cuModuleGetGlobal");
  assert_int_equal(lookups, 1);
  assert_int_equal(cubind_module_global_copy(&var_module, 0, out, 2, sizeof(double),
                                             CUBIND_COPY_FROM_DEVICE),
                   CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuModuleGetGlobal"), lookups);
  assert_int_equal(cubind_module_global_copy(&var_module, 0, in, 9, sizeof(double),
                                             CUBIND_COPY_TO_DEVICE),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "vars_coeffs_to_device: 9 elements of 8 bytes (72 bytes) "
                                       "do not fit in variable 'coeffs' of module vars (64 bytes)");
  assert_int_equal(cubind_module_global_copy(&var_module, 1, in, 1, sizeof(double),
                                             CUBIND_COPY_TO_DEVICE),
                   CUBIND_ERROR_KERNEL_NOT_FOUND);
  assert_contains(cubind_last_error(), "variable 'gone' (symbol 'gone') in module vars");
  assert_int_equal(cubind_module_global_copy(&var_module, 0, NULL, 0, sizeof(double),
                                             CUBIND_COPY_TO_DEVICE),
                   CUBIND_SUCCESS);
  assert_int_equal(cubind_module_global_copy(&var_module, 0, NULL, 1, sizeof(double),
                                             CUBIND_COPY_TO_DEVICE),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_int_equal(cubind_module_global_copy(&var_module, 0, in, SIZE_MAX, sizeof(double),
                                             CUBIND_COPY_TO_DEVICE),
                   CUBIND_ERROR_SIZE_OVERFLOW);
  assert_int_equal(cubind_module_global_copy(&var_module, 2, in, 1, sizeof(double),
                                             CUBIND_COPY_TO_DEVICE),
                   CUBIND_ERROR_INVALID_VALUE);
  /* vars shares vec's image (same pointer): vec's kernels, vars' variable, one load */
  assert_int_equal(fake_cuda_loads(0), 1);
  assert_int_equal(launch_first_kernel((void *)&vec_module), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_loads(0), 1);
}

/*
 * Two modules, one image (separable compilation): a __device__ variable both name is one
 * object. A copy of the image's bytes elsewhere is another image, with a variable of its own.
 */
static void shared_variables(void **state) {
  static const cubind_global_info globals[] = {{"coeffs", "coeffs"}};
  cubind_module *a = fresh_module(vec_kernels, 3), *b, *other = fresh_module(vec_kernels, 3);
  double in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
  (void)state;
  a->name = "a";
  a->globals = globals;
  a->num_globals = 1;
  b = module_sharing(a, "b", vec_kernels, 1, globals, 1);
  other->globals = globals;
  other->num_globals = 1;
  assert_int_equal(cubind_module_global_copy(a, 0, in, 8, sizeof(double), CUBIND_COPY_TO_DEVICE),
                   CUBIND_SUCCESS);
  memset(out, 0, sizeof out);
  assert_int_equal(cubind_module_global_copy(b, 0, out, 8, sizeof(double),
                                             CUBIND_COPY_FROM_DEVICE),
                   CUBIND_SUCCESS);
  assert_memory_equal(out, in, sizeof in);
  assert_int_equal(fake_cuda_calls("cuModuleLoadData"), 1); /* one load for both */
  memset(out, 0xFF, sizeof out);
  assert_int_equal(cubind_module_global_copy(other, 0, out, 8, sizeof(double),
                                             CUBIND_COPY_FROM_DEVICE),
                   CUBIND_SUCCESS);
  assert_true(out[0] == 0.0 && out[7] == 0.0); /* its own, untouched variable */
  assert_int_equal(fake_cuda_calls("cuModuleLoadData"), 2);
  /* b's kernels come from the same load */
  assert_int_equal(launch_kernel(b, 0), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuModuleLoadData"), 2);
}

static cubind_status scenario_variable(void *arg) {
  static const cubind_global_info globals[] = {{"coeffs", "coeffs"}};
  cubind_module *m = fresh_module(vec_kernels, 3);
  double value = 2.0;
  m->globals = globals;
  m->num_globals = 1;
  return cubind_module_global_copy(m, 0, &value, 1, sizeof value,
                                   arg ? CUBIND_COPY_FROM_DEVICE : CUBIND_COPY_TO_DEVICE);
}

static void every_variable_call_fails_cleanly(void **state) {
  static const injection cases[] = {
      {"cuModuleLoadData", CUDA_ERROR_INVALID_IMAGE, scenario_variable, NULL,
       CUBIND_ERROR_MODULE_LOAD, {"vec_coeffs_to_device", "loading module vec on device 0"}, 0},
      /* a loaded image stays loaded, whatever the lookup or the copy says */
      {"cuModuleGetGlobal", CUDA_ERROR_UNKNOWN, scenario_variable, NULL,
       CUBIND_ERROR_MODULE_LOAD,
       {"vec_coeffs_to_device", "variable 'coeffs' (symbol 'coeffs') in module vec on device 0"},
       1},
      {"cuMemcpyHtoD", CUDA_ERROR_INVALID_VALUE, scenario_variable, NULL, CUBIND_ERROR_MEMCPY,
       {"vec_coeffs_to_device: cuMemcpyHtoD of 8 bytes failed"}, 1},
      {"cuMemcpyDtoH", CUDA_ERROR_ILLEGAL_ADDRESS, scenario_variable, "from",
       CUBIND_ERROR_KERNEL_FAULT, {"vec_coeffs_from_device: cuMemcpyDtoH of 8 bytes failed"}, 1},
  };
  (void)state;
  run_injections(cases, sizeof cases / sizeof cases[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(module_variables, test_setup),
      cmocka_unit_test_setup(shared_variables, test_setup),
      cmocka_unit_test_setup(every_variable_call_fails_cleanly, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 4);
}
