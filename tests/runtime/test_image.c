/*
 * test_image.c (runtime/src/image.c): images loaded once per device; images shared by several
 * modules (separable compilation: one fatbin, several .cu files' modules) loaded once per device
 * for all of them; the "no code for this GPU" message and the fatbin reader behind it; a
 * failure injected into each call of a load.
 */
#include "test_support.h"

/* Defined in the runtime (hidden in the shared library; these tests link the static one). */
void cubind__fatbin_archs(const unsigned char *image, size_t size, char *buf, size_t buf_size);

static void load_once_per_device(void **state) {
  cubind_module *m = fresh_module(vec_kernels, 3);
  unsigned long before0 = fake_cuda_loads(0), before1 = fake_cuda_loads(1);
  int i;
  (void)state;
  for (i = 0; i < 3; i++)
    assert_int_equal(launch_first_kernel(m), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_loads(0) - before0, 1);
  /* Device 1, from this thread: one more load, there. */
  assert_int_equal(cubind_set_device(1), CUBIND_SUCCESS);
  for (i = 0; i < 3; i++)
    assert_int_equal(launch_first_kernel(m), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_loads(1) - before1, 1);
  assert_int_equal(fake_cuda_loads(0) - before0, 1);
  assert_int_equal(cubind_set_device(0), CUBIND_SUCCESS);
}

/* Another .cu file's kernels in the same fatbin. */
static const cubind_kernel_info b_kernels[] = {{"small", "small", doublify_params, 2},
                                               {"noop", "noop", NULL, 0}};

/*
 * Two modules, one image: the first use of either loads it (once per device), the other's
 * kernels resolve from the same library; a copy of the same bytes elsewhere is another image.
 */
static void shared_images(void **state) {
  cubind_module *a = fresh_module(vec_kernels, 3), *b, *copy = fresh_module(vec_kernels, 3);
  unsigned long before0 = fake_cuda_loads(0), before1 = fake_cuda_loads(1);
  long images = fake_cuda_live_images();
  (void)state;
  a->name = "a";
  b = module_sharing(a, "b", b_kernels, 2, NULL, 0);
  assert_int_equal(launch_kernel(a, 0), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_loads(0) - before0, 1);
  assert_int_equal(launch_kernel(b, 0), CUBIND_SUCCESS); /* b's kernel, a's load */
  assert_int_equal(launch_kernel(b, 1), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_loads(0) - before0, 1);
  assert_int_equal(fake_cuda_calls("cuModuleGetFunction"), 3); /* each kernel resolved once */
  assert_int_equal(fake_cuda_live_images(), images + 1);
  /* the same bytes at another address: another image, loaded on its own */
  assert_int_equal(launch_kernel(copy, 0), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_loads(0) - before0, 2);
  /* device 1: b first, then a: one load there for both */
  assert_int_equal(cubind_set_device(1), CUBIND_SUCCESS);
  assert_int_equal(launch_kernel(b, 1), CUBIND_SUCCESS);
  assert_int_equal(launch_kernel(a, 1), CUBIND_SUCCESS);
  assert_int_equal(launch_kernel(a, 0), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_loads(1) - before1, 1);
  assert_int_equal(cubind_set_device(0), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_images(), images + 3);
}

/*
 * A shared image's first use fails (the first module's kernel cannot be resolved): nothing
 * stays loaded, and the other module's first use loads it afresh. A failure of the second
 * module's kernel after the first loaded the image leaves the image loaded for the first.
 */
static void shared_image_failures(void **state) {
  static const cubind_kernel_info gone[] = {{"gone", "gone", doublify_params, 2}};
  cubind_module *d = fresh_module(vec_kernels, 3), *e, *f;
  long images = fake_cuda_live_images();
  unsigned long before = fake_cuda_loads(0);
  (void)state;
  e = module_sharing(d, "e", b_kernels, 2, NULL, 0);
  f = module_sharing(d, "f", gone, 1, NULL, 0);
  fake_cuda_fail("cuModuleGetFunction", 1, CUDA_ERROR_NOT_FOUND, 0);
  assert_int_equal(launch_kernel(d, 0), CUBIND_ERROR_KERNEL_NOT_FOUND);
  assert_int_equal(fake_cuda_live_images(), images); /* unloaded again */
  assert_int_equal(launch_kernel(e, 0), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_loads(0) - before, 2);
  assert_int_equal(fake_cuda_live_images(), images + 1);
  assert_int_equal(launch_kernel(f, 0), CUBIND_ERROR_KERNEL_NOT_FOUND);
  assert_contains(cubind_last_error(), "kernel 'gone' (symbol 'gone') in module f");
  assert_int_equal(fake_cuda_live_images(), images + 1); /* still loaded for d and e */
  assert_int_equal(launch_kernel(d, 0), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_loads(0) - before, 2);
}

static void no_binary_for_gpu(void **state) {
  long images = fake_cuda_live_images();
  (void)state;
  fake_cuda_set_compute_capability(7, 5);
  fake_cuda_fail("cuModuleLoadData", 1, CUDA_ERROR_NO_BINARY_FOR_GPU, 0);
  assert_int_equal(launch_first_kernel(fresh_module(vec_kernels, 3)), CUBIND_ERROR_NO_KERNEL_IMAGE);
  assert_contains(cubind_last_error(), "doublify_launch");
  assert_contains(cubind_last_error(), "module vec has no code for device 0 (sm_75)");
  assert_contains(cubind_last_error(), "sm_80 (cubin), sm_90 (cubin), sm_90 (PTX)");
  assert_contains(cubind_last_error(), "ARCHS 75");
  assert_contains(cubind_last_error(), "CUDA_ERROR_NO_BINARY_FOR_GPU");
  assert_int_equal(fake_cuda_live_images(), images);
  /* Lazy loading reports it when the kernel is resolved: same message. */
  fake_cuda_fail("cuModuleGetFunction", 1, CUDA_ERROR_NO_BINARY_FOR_GPU, 0);
  assert_int_equal(launch_first_kernel(fresh_module(vec_kernels, 3)), CUBIND_ERROR_NO_KERNEL_IMAGE);
  assert_contains(cubind_last_error(), "sm_80 (cubin), sm_90 (cubin), sm_90 (PTX)");
  assert_int_equal(fake_cuda_live_images(), images);
}

static void fatbin_archs(void **state) {
  unsigned char copy[2 * TEST_IMAGE_BYTES];
  char buf[256];
  size_t len;
  (void)state;
  cubind__fatbin_archs(cubind_fatbin_vec, cubind_fatbin_vec_size, buf, sizeof buf);
  assert_string_equal(buf, "sm_80 (cubin), sm_90 (cubin), sm_90 (PTX)");
  /* Every truncation of the image, and garbage sizes, stay inside the buffer (valgrind, ASan). */
  for (len = 0; len <= cubind_fatbin_vec_size; len++) {
    unsigned char *exact = malloc(len ? len : 1);
    memcpy(exact, cubind_fatbin_vec, len);
    cubind__fatbin_archs(exact, len, buf, sizeof buf);
    free(exact);
  }
  memcpy(copy, cubind_fatbin_vec, cubind_fatbin_vec_size);
  memset(copy + 8, 0xFF, 8); /* container payload size: huge */
  cubind__fatbin_archs(copy, cubind_fatbin_vec_size, buf, sizeof buf);
  assert_string_equal(buf, "no recognisable architectures (container runs past the end of the "
                           "data)");
  memcpy(copy, cubind_fatbin_vec, cubind_fatbin_vec_size);
  memset(copy + 16 + 80 + 4, 0xFF, 4); /* the second entry's header size: huge */
  cubind__fatbin_archs(copy, cubind_fatbin_vec_size, buf, sizeof buf);
  assert_string_equal(buf, "sm_80 (cubin), then malformed data (bad entry header size)");
  /* two containers back to back, then zero padding */
  memset(copy, 0, sizeof copy);
  memcpy(copy, cubind_fatbin_vec, cubind_fatbin_vec_size);
  memcpy(copy + cubind_fatbin_vec_size, cubind_fatbin_vec, cubind_fatbin_vec_size);
  cubind__fatbin_archs(copy, sizeof copy, buf, sizeof buf);
  assert_string_equal(buf, "sm_80 (cubin), sm_90 (cubin), sm_90 (PTX), sm_80 (cubin), sm_90 "
                           "(cubin), sm_90 (PTX)");
  cubind__fatbin_archs((const unsigned char *)"not a fatbin", 12, buf, sizeof buf);
  assert_contains(buf, "no recognisable architectures");
  cubind__fatbin_archs(cubind_fatbin_vec, cubind_fatbin_vec_size, buf, 12); /* tiny buffer */
  assert_int_equal(strlen(buf), 11);
}

static void every_load_call_fails_cleanly(void **state) {
  static const injection cases[] = {
      {"cuModuleLoadData", CUDA_ERROR_OUT_OF_MEMORY, scenario_load_and_launch, NULL,
       CUBIND_ERROR_OUT_OF_MEMORY, {LAUNCH_TEXT, "failed loading module vec on device 0"}, 0},
      {"cuModuleLoadData", CUDA_ERROR_INVALID_IMAGE, scenario_load_and_launch, NULL,
       CUBIND_ERROR_MODULE_LOAD, {LAUNCH_TEXT}, 0},
      {"cuDeviceGet", CUDA_ERROR_UNKNOWN, scenario_load_and_launch, NULL, CUBIND_ERROR_MODULE_LOAD,
       {LAUNCH_TEXT, "loading module vec on device 0"}, 0},
      {"cuDeviceGetAttribute", CUDA_ERROR_INVALID_VALUE, scenario_load_and_launch, NULL,
       CUBIND_ERROR_MODULE_LOAD, {LAUNCH_TEXT, "MAX_BLOCK_DIM_X"}, 0},
  };
  (void)state;
  run_injections(cases, sizeof cases / sizeof cases[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(load_once_per_device, test_setup),
      cmocka_unit_test_setup(shared_images, test_setup),
      cmocka_unit_test_setup(shared_image_failures, test_setup),
      cmocka_unit_test_setup(no_binary_for_gpu, test_setup),
      cmocka_unit_test_setup(fatbin_archs, test_setup),
      cmocka_unit_test_setup(every_load_call_fails_cleanly, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 4);
}
