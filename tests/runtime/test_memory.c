/*
 * test_memory.c (runtime/src/memory.c): device and page-locked memory, host memory registered
 * in place, synchronous and asynchronous copies, memset, synchronisation and streams; a failure injected into each of
 * their driver calls.
 */
#include "test_support.h"

static void memory_api(void **state) {
  float *pinned = NULL, *dev = NULL;
  CUstream s = NULL;
  int i;
  (void)state;
  assert_int_equal(cubind_malloc((void **)&dev, 0), CUBIND_SUCCESS);
  assert_null(dev);
  assert_int_equal(cubind_free(NULL), CUBIND_SUCCESS);
  assert_int_equal(cubind_malloc(NULL, 4), CUBIND_ERROR_INVALID_VALUE);
  assert_int_equal(cubind_malloc_host((void **)&pinned, 64 * sizeof(float)), CUBIND_SUCCESS);
  assert_int_equal(cubind_malloc((void **)&dev, 64 * sizeof(float)), CUBIND_SUCCESS);
  assert_int_equal(cubind_stream_create(&s), CUBIND_SUCCESS);
  for (i = 0; i < 64; i++)
    pinned[i] = (float)i;
  assert_int_equal(cubind_to_device_async(dev, pinned, 64 * sizeof(float), s), CUBIND_SUCCESS);
  memset(pinned, 0, 64 * sizeof(float));
  assert_int_equal(cubind_from_device_async(pinned, dev, 64 * sizeof(float), s), CUBIND_SUCCESS);
  assert_int_equal(cubind_stream_synchronize(s), CUBIND_SUCCESS);
  assert_true(pinned[63] == 63.0f);
  assert_int_equal(cubind_memset_d8(dev, 0, 64 * sizeof(float)), CUBIND_SUCCESS);
  assert_int_equal(cubind_from_device(pinned, dev, 64 * sizeof(float)), CUBIND_SUCCESS);
  assert_true(pinned[63] == 0.0f);
  assert_int_equal(cubind_to_device(dev, NULL, 4), CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "cubind_to_device: the source pointer is NULL (4 bytes)");
  assert_int_equal(cubind_to_device(dev, NULL, 0), CUBIND_SUCCESS);
  assert_int_equal(cubind_memset_d8(NULL, 0, 4), CUBIND_ERROR_INVALID_VALUE);
  assert_int_equal(cubind_synchronize(), CUBIND_SUCCESS);
  assert_int_equal(cubind_stream_destroy(s), CUBIND_SUCCESS);
  assert_int_equal(cubind_stream_destroy(NULL), CUBIND_SUCCESS);
  assert_int_equal(cubind_free(dev), CUBIND_SUCCESS);
  assert_int_equal(cubind_free_host(pinned), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_device_allocations() + fake_cuda_live_host_allocations() +
                       fake_cuda_live_streams(),
                   0);
}

/* cubind_host_register: ordinary memory page-locked in place, once; the edge cases. */
static void host_registration(void **state) {
  static char buffer[1 << 16];
  long registrations = fake_cuda_live_registrations();
  (void)state;
  assert_int_equal(cubind_host_register(buffer, sizeof buffer), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_registrations(), registrations + 1);
  assert_int_equal(cubind_host_register(buffer, sizeof buffer), CUBIND_ERROR_CUDA);
  assert_contains(cubind_last_error(), "cubind_host_register: cuMemHostRegister(");
  assert_contains(cubind_last_error(), "65536 bytes) failed: CUDA_ERROR_HOST_MEMORY_ALREADY");
  assert_int_equal(cubind_host_unregister(buffer), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_registrations(), registrations);
  assert_int_equal(cubind_host_unregister(buffer), CUBIND_ERROR_CUDA);
  assert_contains(cubind_last_error(), "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED");
  assert_int_equal(cubind_host_register(NULL, 4), CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "cubind_host_register: host is NULL");
  assert_int_equal(cubind_host_register(buffer, 0), CUBIND_SUCCESS);
  assert_int_equal(cubind_host_unregister(NULL), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuMemHostRegister"), 2);
}

static cubind_status scenario_memory(void *arg) {
  const char *op = arg;
  char host[64] = {0};
  void *dev = NULL, *pinned = NULL;
  cubind_status status = CUBIND_ERROR_CUDA;
  if (strcmp(op, "malloc") == 0) return cubind_malloc(&dev, 64);
  if (strcmp(op, "malloc_host") == 0) return cubind_malloc_host(&pinned, 64);
  if (strcmp(op, "synchronize") == 0) return cubind_synchronize();
  if (strcmp(op, "host_register") == 0) {
    status = cubind_host_register(host, sizeof host);
    if (status == CUBIND_SUCCESS) status = cubind_host_unregister(host);
    return status;
  }
  if (strcmp(op, "stream_create") == 0) return cubind_stream_create((CUstream *)&dev);
  if (strcmp(op, "stream_synchronize") == 0) return cubind_stream_synchronize(NULL);
  if (strcmp(op, "stream") == 0) {
    CUstream s;
    if (cubind_stream_create(&s) != CUBIND_SUCCESS) return CUBIND_ERROR_CUDA;
    status = cubind_stream_destroy(s);
    if (status != CUBIND_SUCCESS && cubind_stream_destroy(s) != CUBIND_SUCCESS)
      return CUBIND_ERROR_CUDA;
    return status;
  }
  if (strcmp(op, "free_host") == 0) {
    if (cubind_malloc_host(&pinned, 64) != CUBIND_SUCCESS) return CUBIND_ERROR_CUDA;
    status = cubind_free_host(pinned);
    if (status != CUBIND_SUCCESS && cubind_free_host(pinned) != CUBIND_SUCCESS)
      return CUBIND_ERROR_CUDA;
    return status;
  }
  /* The rest need an object first; a failing free is retried so that nothing leaks. */
  if (cubind_malloc(&dev, 64) != CUBIND_SUCCESS) return CUBIND_ERROR_CUDA;
  if (strcmp(op, "free") == 0) status = cubind_free(dev);
  if (strcmp(op, "to_device") == 0) status = cubind_to_device(dev, host, 64);
  if (strcmp(op, "from_device") == 0) status = cubind_from_device(host, dev, 64);
  if (strcmp(op, "to_device_async") == 0) status = cubind_to_device_async(dev, host, 64, NULL);
  if (strcmp(op, "from_device_async") == 0) status = cubind_from_device_async(host, dev, 64, NULL);
  if (strcmp(op, "memset") == 0) status = cubind_memset_d8(dev, 1, 64);
  if (cubind_free(dev) != CUBIND_SUCCESS && strcmp(op, "free") != 0) return CUBIND_ERROR_CUDA;
  return status;
}

static void every_memory_call_fails_cleanly(void **state) {
  static const injection cases[] = {
      {"cuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY, scenario_memory, "malloc",
       CUBIND_ERROR_OUT_OF_MEMORY, {"cubind_malloc", "64 bytes"}, 0},
      {"cuMemFree", CUDA_ERROR_INVALID_VALUE, scenario_memory, "free", CUBIND_ERROR_CUDA,
       {"cubind_free"}, 0},
      {"cuMemAllocHost", CUDA_ERROR_OUT_OF_MEMORY, scenario_memory, "malloc_host",
       CUBIND_ERROR_OUT_OF_MEMORY, {"cubind_malloc_host"}, 0},
      {"cuMemcpyHtoD", CUDA_ERROR_INVALID_VALUE, scenario_memory, "to_device",
       CUBIND_ERROR_MEMCPY, {"cubind_to_device", "64 bytes"}, 0},
      {"cuMemcpyDtoH", CUDA_ERROR_ILLEGAL_ADDRESS, scenario_memory, "from_device",
       CUBIND_ERROR_KERNEL_FAULT, {"cubind_from_device"}, 0},
      {"cuMemcpyHtoDAsync", CUDA_ERROR_INVALID_VALUE, scenario_memory, "to_device_async",
       CUBIND_ERROR_MEMCPY, {"cubind_to_device_async"}, 0},
      {"cuMemcpyDtoHAsync", CUDA_ERROR_INVALID_VALUE, scenario_memory, "from_device_async",
       CUBIND_ERROR_MEMCPY, {"cubind_from_device_async"}, 0},
      {"cuMemsetD8", CUDA_ERROR_INVALID_VALUE, scenario_memory, "memset", CUBIND_ERROR_CUDA,
       {"cubind_memset_d8"}, 0},
      {"cuCtxSynchronize", CUDA_ERROR_LAUNCH_FAILED, scenario_memory, "synchronize",
       CUBIND_ERROR_KERNEL_FAULT, {"cubind_synchronize"}, 0},
      {"cuStreamCreate", CUDA_ERROR_OUT_OF_MEMORY, scenario_memory, "stream_create",
       CUBIND_ERROR_OUT_OF_MEMORY, {"cubind_stream_create"}, 0},
      {"cuStreamSynchronize", CUDA_ERROR_INVALID_HANDLE, scenario_memory, "stream_synchronize",
       CUBIND_ERROR_STREAM, {"cubind_stream_synchronize"}, 0},
      {"cuStreamDestroy", CUDA_ERROR_INVALID_HANDLE, scenario_memory, "stream",
       CUBIND_ERROR_STREAM, {"cubind_stream_destroy"}, 0},
      {"cuMemFreeHost", CUDA_ERROR_INVALID_VALUE, scenario_memory, "free_host", CUBIND_ERROR_CUDA,
       {"cubind_free_host"}, 0},
      {"cuMemHostRegister", CUDA_ERROR_OUT_OF_MEMORY, scenario_memory, "host_register",
       CUBIND_ERROR_OUT_OF_MEMORY, {"cubind_host_register", "64 bytes", "CUDA_ERROR_OUT_OF_MEMORY"}, 0},
      {"cuMemHostUnregister", CUDA_ERROR_INVALID_VALUE, scenario_memory, "host_register",
       CUBIND_ERROR_CUDA, {"cubind_host_unregister", "CUDA_ERROR_INVALID_VALUE"}, 0},
  };
  (void)state;
  run_injections(cases, sizeof cases / sizeof cases[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(memory_api, test_setup),
      cmocka_unit_test_setup(host_registration, test_setup),
      cmocka_unit_test_setup(every_memory_call_fails_cleanly, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 4);
}
