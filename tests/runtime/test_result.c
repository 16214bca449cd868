/*
 * test_result.c (runtime/src/result.c): driver results as statuses and messages: the status
 * class of a result, the driver's name and text for it (or its number), and a kernel fault that
 * names the calling thread's last launch.
 */
#include "test_support.h"

/* Defined in the runtime (hidden in the shared library; these tests link the static one). */
cubind_status cubind__status_from_cuda(CUresult result, cubind_status fallback);

static void status_classes(void **state) {
  (void)state;
  assert_int_equal(cubind__status_from_cuda(CUDA_SUCCESS, CUBIND_ERROR_CUDA), CUBIND_SUCCESS);
  assert_int_equal(cubind__status_from_cuda(CUDA_ERROR_OUT_OF_MEMORY, CUBIND_ERROR_CUDA),
                   CUBIND_ERROR_OUT_OF_MEMORY);
  assert_int_equal(cubind__status_from_cuda(CUDA_ERROR_ILLEGAL_ADDRESS, CUBIND_ERROR_CUDA),
                   CUBIND_ERROR_KERNEL_FAULT);
  assert_int_equal(cubind__status_from_cuda(CUDA_ERROR_NO_BINARY_FOR_GPU, CUBIND_ERROR_CUDA),
                   CUBIND_ERROR_NO_KERNEL_IMAGE);
  assert_int_equal(cubind__status_from_cuda(CUDA_ERROR_INVALID_CONTEXT, CUBIND_ERROR_CUDA),
                   CUBIND_ERROR_CONTEXT);
  assert_int_equal(cubind__status_from_cuda(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, CUBIND_ERROR_CUDA),
                   CUBIND_ERROR_INVALID_CONFIG);
  assert_int_equal(cubind__status_from_cuda(CUDA_ERROR_INVALID_VALUE, CUBIND_ERROR_MEMCPY),
                   CUBIND_ERROR_MEMCPY); /* no class of its own: the caller's */
}

/* A fault surfaces in a later call, whose message names the thread's last launch. */
static void fault_attribution(void **state) {
  cubind_config cfg = {{3, 1, 1}, {64, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  float *dev = NULL;
  (void)state;
  assert_int_equal(cubind_malloc((void **)&dev, 16), CUBIND_SUCCESS);
  assert_int_equal(doublify_launch(&cfg, dev, 4), CUBIND_SUCCESS);
  fake_cuda_fail("cuCtxSynchronize", 1, CUDA_ERROR_ILLEGAL_ADDRESS, 0);
  assert_int_equal(cubind_synchronize(), CUBIND_ERROR_KERNEL_FAULT);
  assert_contains(cubind_last_error(), "cubind_synchronize: cuCtxSynchronize failed: "
                                       "CUDA_ERROR_ILLEGAL_ADDRESS");
  assert_contains(cubind_last_error(), "last launch was kernel 'doublify' (module vec) "
                                       "grid=(3,1,1) block=(64,1,1) shared=0");
  assert_int_equal(cubind_free(dev), CUBIND_SUCCESS);
}

/* A result the driver cannot name is still reported, by number. */
static void unnamed_results(void **state) {
  void *dev = NULL;
  (void)state;
  fake_cuda_fail("cuMemAlloc", 1, (CUresult)12345, 0);
  assert_int_equal(cubind_malloc(&dev, 16), CUBIND_ERROR_OUT_OF_MEMORY);
  assert_contains(cubind_last_error(),
                  "cubind_malloc: cuMemAlloc of 16 bytes failed: CUDA error 12345");
  fake_cuda_fail("cuMemAlloc", 1, CUDA_ERROR_INVALID_VALUE, 0);
  assert_int_equal(cubind_malloc(&dev, 16), CUBIND_ERROR_OUT_OF_MEMORY);
  assert_contains(cubind_last_error(), "CUDA_ERROR_INVALID_VALUE (invalid argument)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(status_classes, test_setup),
      cmocka_unit_test_setup(fault_attribution, test_setup),
      cmocka_unit_test_setup(unnamed_results, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 4);
}
