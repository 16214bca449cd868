/*
 * test_registry.c (runtime/src/registry.c): the modules a program registers (one per generated
 * .c) and cubind_preload, which loads every image on the calling thread's device and resolves
 * no kernel (each is resolved at its first launch, keeping the driver's lazy loading): once per
 * image, a module registered twice listed once, a load failure reported naming its module, and
 * a module generated for another ABI refused.
 */
#include "test_support.h"

static unsigned long resolutions(void) { return fake_cuda_calls("cuModuleGetFunction"); }

static void preload(void **state) {
  static const cubind_kernel_info b_kernels[] = {{"noop", "noop", NULL, 0}};
  cubind_module *m = fresh_module(vec_kernels, 3), *p = fresh_module(vec_kernels, 3), *shared;
  unsigned long before1 = fake_cuda_loads(1);
  int i;
  (void)state;
  shared = module_sharing(p, "shared", b_kernels, 1, NULL, 0);
  assert_int_equal(cubind_set_device(1), CUBIND_SUCCESS);
  assert_int_equal(launch_kernel(m, 1), CUBIND_SUCCESS); /* m: loaded, one kernel resolved */
  assert_int_equal(fake_cuda_loads(1) - before1, 1);
  cubind_module_register(m);
  cubind_module_register(p);
  cubind_module_register(m); /* twice: listed once */
  cubind_module_register(shared);
  cubind_module_register(NULL);
  assert_ptr_equal(p->state->next, m);
  assert_ptr_equal(shared->state->next, p);
  fake_cuda_reset();
  assert_int_equal(cubind_preload(), CUBIND_SUCCESS);
  /* p's image (shared's too) loaded once, m's already; no kernel resolved */
  assert_int_equal(resolutions(), 0);
  assert_int_equal(fake_cuda_loads(1) - before1, 2);
  fake_cuda_reset();
  for (i = 0; i < 3; i++) {
    assert_int_equal(launch_kernel(m, (unsigned)i), CUBIND_SUCCESS);
    assert_int_equal(launch_kernel(p, (unsigned)i), CUBIND_SUCCESS);
  }
  assert_int_equal(launch_kernel(shared, 0), CUBIND_SUCCESS);
  /* m's 2 other kernels, p's 3 and shared's 1, each at its first launch; no image loaded */
  assert_int_equal(resolutions(), 2 + 3 + 1);
  assert_int_equal(fake_cuda_calls("cuModuleLoadData"), 0);
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), 7);
  fake_cuda_reset();
  assert_int_equal(cubind_preload(), CUBIND_SUCCESS); /* again: nothing to do */
  assert_int_equal(resolutions(), 0);
  assert_int_equal(fake_cuda_calls("cuModuleLoadData"), 0);
  assert_int_equal(cubind_set_device(0), CUBIND_SUCCESS);
}

/*
 * An image that fails to load fails the preload, naming its module (it stays registered, and a
 * later preload loads it); a kernel whose layout the stubs do not match is reported at its first
 * launch, the other kernels work.
 */
static void preload_failure(void **state) {
  static const cubind_param_info params[] = {{"a", 0, 8}, {"n", 8, 4}};
  static const cubind_kernel_info with_mismatch[] = {{"noop", "noop", NULL, 0},
                                                     {"mismatch", "mismatch", params, 2}};
  cubind_module *m = fresh_module(with_mismatch, 2);
  (void)state;
  m->name = "bad";
  cubind_module_register(m);
  fake_cuda_fail("cuModuleLoadData", 1, CUDA_ERROR_INVALID_IMAGE, 0);
  assert_int_equal(cubind_preload(), CUBIND_ERROR_MODULE_LOAD);
  assert_contains(cubind_last_error(), "cubind_preload (module bad): cuModuleLoadData failed");
  assert_int_equal(cubind_preload(), CUBIND_SUCCESS);
  assert_int_equal(launch_kernel(m, 1), CUBIND_ERROR_ABI_MISMATCH);
  assert_contains(cubind_last_error(), "kernel 'mismatch' (module bad)");
  assert_int_equal(launch_kernel(m, 0), CUBIND_SUCCESS); /* the other kernel works */
}

/* A module generated for another ABI is not listed; preload says why. */
static void foreign_module(void **state) {
  cubind_module *m = fresh_module(vec_kernels, 3);
  (void)state;
  m->abi_version = 2;
  m->name = "old";
  cubind_module_register(m);
  assert_null(m->state->next);
  assert_int_equal(cubind_preload(), CUBIND_ERROR_VERSION_MISMATCH);
  assert_contains(cubind_last_error(), "cubind_preload: module old was generated for cubind ABI 2");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(preload, test_setup),
      cmocka_unit_test_setup(preload_failure, test_setup), /* these two stay: run them last */
      cmocka_unit_test_setup(foreign_module, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 4);
}
