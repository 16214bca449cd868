/*
 * test_kernel.c (runtime/src/kernel.c): each kernel resolved at its own first launch on a
 * device, once; resolution failures reported as precisely as at load, and retried; the ABI check
 * of the generated parameter layout; a missing symbol; a failure injected into each call of a
 * kernel's resolution.
 */
#include "test_support.h"

static unsigned long resolutions(void) { return fake_cuda_calls("cuModuleGetFunction"); }

/* Kernels are resolved on their own first launch, once per device. */
static void kernels_resolve_lazily(void **state) {
  cubind_module *m = fresh_module(vec_kernels, 3);
  unsigned long before0 = fake_cuda_loads(0);
  int i;
  (void)state;
  assert_int_equal(launch_kernel(m, 1), CUBIND_SUCCESS); /* noop first: only it is resolved */
  assert_int_equal(fake_cuda_loads(0) - before0, 1);
  assert_int_equal(resolutions(), 1);
  assert_int_equal(fake_cuda_calls("cuFuncGetParamInfo"), 0); /* noop has no parameters */
  assert_int_equal(fake_cuda_calls("cuFuncSetAttribute"), 1);
  for (i = 0; i < 3; i++)
    assert_int_equal(launch_kernel(m, 0), CUBIND_SUCCESS); /* B after A: resolved once */
  assert_int_equal(resolutions(), 2);
  assert_int_equal(fake_cuda_calls("cuFuncGetParamInfo"), 2);
  assert_int_equal(fake_cuda_loads(0) - before0, 1); /* the image is not loaded again */
  assert_int_equal(launch_kernel(m, 1), CUBIND_SUCCESS);
  assert_int_equal(resolutions(), 2);
  /* Another device: its own load and resolution. */
  assert_int_equal(cubind_set_device(2), CUBIND_SUCCESS);
  assert_int_equal(launch_kernel(m, 0), CUBIND_SUCCESS);
  assert_int_equal(resolutions(), 3);
  assert_int_equal(cubind_set_device(0), CUBIND_SUCCESS);
  /* Resolved: later launches take the fast path (no driver call but the launch's own). */
  fake_cuda_reset();
  for (i = 0; i < 3; i++)
    assert_int_equal(launch_kernel(m, (unsigned)i), CUBIND_SUCCESS);
  assert_int_equal(resolutions(), 1); /* "small", launched for the first time */
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), 3);
}

/*
 * A failure while resolving a later kernel (B after A) is reported with the same precision as at
 * load; the image stays loaded, A keeps working, and B resolves on a later attempt.
 */
static void lazy_resolution_failures(void **state) {
  static const struct {
    const char *function;
    CUresult result;
    cubind_status expected;
    const char *expect;
  } cases[] = {
      {"cuModuleGetFunction", CUDA_ERROR_NOT_FOUND, CUBIND_ERROR_KERNEL_NOT_FOUND,
       "cuModuleGetFunction failed for kernel 'doublify' (symbol 'doublify') in module vec on "
       "device 0: CUDA_ERROR_NOT_FOUND"},
      {"cuModuleGetFunction", CUDA_ERROR_UNKNOWN, CUBIND_ERROR_MODULE_LOAD,
       "cuModuleGetFunction failed for kernel 'doublify'"},
      {"cuModuleGetFunction", CUDA_ERROR_NO_BINARY_FOR_GPU, CUBIND_ERROR_NO_KERNEL_IMAGE,
       "sm_80 (cubin), sm_90 (cubin), sm_90 (PTX)"},
      {"cuFuncGetParamInfo", CUDA_ERROR_UNKNOWN, CUBIND_ERROR_MODULE_LOAD,
       "cuFuncGetParamInfo failed for parameter 0 of kernel 'doublify' (module vec)"},
      {"cuFuncGetAttribute", CUDA_ERROR_UNKNOWN, CUBIND_ERROR_MODULE_LOAD,
       "cuFuncGetAttribute failed for kernel 'doublify' (module vec)"},
      {"cuFuncSetAttribute", CUDA_ERROR_INVALID_VALUE, CUBIND_ERROR_MODULE_LOAD,
       "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES=100352) failed for kernel 'doublify'"},
  };
  static const cubind_param_info params[] = {{"a", 0, 8}, {"n", 8, 4}};
  static const cubind_kernel_info with_mismatch[] = {{"noop", "noop", NULL, 0},
                                                     {"mismatch", "mismatch", params, 2}};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cubind_module *m = fresh_module(vec_kernels, 3);
    long images;
    assert_int_equal(launch_kernel(m, 1), CUBIND_SUCCESS); /* A: noop */
    images = fake_cuda_live_images();
    fake_cuda_fail(cases[i].function, 1, cases[i].result, 0);
    assert_int_equal(launch_kernel(m, 0), cases[i].expected); /* B: doublify */
    assert_contains(cubind_last_error(), "doublify_launch: kernel 'doublify' (module vec)");
    assert_contains(cubind_last_error(), "grid=(4,1,1) block=(64,1,1)");
    assert_contains(cubind_last_error(), cases[i].expect);
    assert_int_equal(fake_cuda_live_images(), images); /* still loaded, nothing more */
    assert_int_equal(launch_kernel(m, 1), CUBIND_SUCCESS);
    assert_int_equal(launch_kernel(m, 0), CUBIND_SUCCESS); /* B resolves on the next try */
    assert_int_equal(fake_cuda_live_images(), images);
  }
  /* An ABI mismatch in a later kernel: reported at its first launch; the others still run. */
  {
    cubind_module *m = fresh_module(with_mismatch, 2);
    assert_int_equal(launch_kernel(m, 0), CUBIND_SUCCESS);
    assert_int_equal(launch_kernel(m, 1), CUBIND_ERROR_ABI_MISMATCH);
    assert_contains(cubind_last_error(), "mismatch_launch: kernel 'mismatch' (module vec)");
    assert_contains(cubind_last_error(), "parameter 1 'n'");
    assert_int_equal(launch_kernel(m, 1), CUBIND_ERROR_ABI_MISMATCH); /* every time */
    assert_int_equal(launch_kernel(m, 0), CUBIND_SUCCESS);
  }
}

static void abi_mismatch(void **state) {
  static const cubind_param_info params[] = {{"a", 0, 8}, {"n", 8, 4}};
  static const cubind_kernel_info kernels[] = {{"mismatch", "mismatch", params, 2}};
  static const cubind_kernel_info too_many[] = {{"noop", "noop", params, 2}};
  static const cubind_param_info any[] = {{"a", 0, 8}, {"n", CUBIND_PARAM_OFFSET_ANY, 8}};
  static const cubind_param_info any_short[] = {{"a", 0, 8}, {"n", CUBIND_PARAM_OFFSET_ANY, 4}};
  static const cubind_kernel_info any_offset[] = {{"mismatch", "mismatch", any, 2}};
  static const cubind_kernel_info any_offset_short[] = {{"mismatch", "mismatch", any_short, 2}};
  long images = fake_cuda_live_images();
  (void)state;
  assert_int_equal(launch_first_kernel(fresh_module(kernels, 1)), CUBIND_ERROR_ABI_MISMATCH);
  assert_contains(cubind_last_error(), "kernel 'mismatch' (module vec)");
  assert_contains(cubind_last_error(), "parameter 1 'n'");
  assert_contains(cubind_last_error(), "offset 8, 4 bytes by the generated stub");
  assert_contains(cubind_last_error(), "offset 8, 8 bytes in the compiled kernel");
  assert_int_equal(fake_cuda_live_images(), images); /* unloaded again */
  assert_int_equal(launch_first_kernel(fresh_module(too_many, 1)), CUBIND_ERROR_ABI_MISMATCH);
  assert_contains(cubind_last_error(), "has only 0");
  /* A failing unload during that cleanup does not change the report. */
  fake_cuda_fail("cuModuleUnload", 1, CUDA_ERROR_UNKNOWN, 0);
  assert_int_equal(launch_first_kernel(fresh_module(kernels, 1)), CUBIND_ERROR_ABI_MISMATCH);
  assert_contains(cubind_last_error(), "parameter 1 'n'");
  assert_int_equal(fake_cuda_calls("cuModuleUnload"), 3);
  assert_int_equal(fake_cuda_live_images(), images);
  /* CUBIND_PARAM_OFFSET_ANY (a parameter aligned to more than 16): its size is checked, not
     its offset (the compiled kernel has n at 8, 8 bytes) */
  assert_int_equal(launch_first_kernel(fresh_module(any_offset, 1)), CUBIND_SUCCESS);
  assert_int_equal(launch_first_kernel(fresh_module(any_offset_short, 1)),
                   CUBIND_ERROR_ABI_MISMATCH);
  assert_contains(cubind_last_error(), "at any offset, 4 bytes by the generated stub");
}

static void missing_symbol(void **state) {
  static const cubind_kernel_info missing[] = {{"gone", "_Z4gonePf", doublify_params, 2}};
  (void)state;
  assert_int_equal(launch_first_kernel(fresh_module(missing, 1)), CUBIND_ERROR_KERNEL_NOT_FOUND);
  assert_contains(cubind_last_error(), "kernel 'gone' (symbol '_Z4gonePf')");
  assert_contains(cubind_last_error(), "CUDA_ERROR_NOT_FOUND");
}

static void every_resolution_call_fails_cleanly(void **state) {
  static const injection cases[] = {
      {"cuModuleGetFunction", CUDA_ERROR_NOT_FOUND, scenario_load_and_launch, NULL,
       CUBIND_ERROR_KERNEL_NOT_FOUND, {LAUNCH_TEXT}, 0},
      {"cuModuleGetFunction", CUDA_ERROR_UNKNOWN, scenario_load_and_launch, NULL,
       CUBIND_ERROR_MODULE_LOAD, {LAUNCH_TEXT}, 0},
      {"cuFuncGetParamInfo", CUDA_ERROR_UNKNOWN, scenario_load_and_launch, NULL,
       CUBIND_ERROR_MODULE_LOAD, {LAUNCH_TEXT}, 0},
      {"cuFuncGetAttribute", CUDA_ERROR_UNKNOWN, scenario_load_and_launch, NULL,
       CUBIND_ERROR_MODULE_LOAD, {LAUNCH_TEXT}, 0},
      {"cuFuncSetAttribute", CUDA_ERROR_INVALID_VALUE, scenario_load_and_launch, NULL,
       CUBIND_ERROR_MODULE_LOAD, {LAUNCH_TEXT}, 0},
  };
  (void)state;
  run_injections(cases, sizeof cases / sizeof cases[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(kernels_resolve_lazily, test_setup),
      cmocka_unit_test_setup(lazy_resolution_failures, test_setup),
      cmocka_unit_test_setup(abi_mismatch, test_setup),
      cmocka_unit_test_setup(missing_symbol, test_setup),
      cmocka_unit_test_setup(every_resolution_call_fails_cleanly, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 4);
}
