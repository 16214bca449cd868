/*
 * test_elementwise.c (runtime/src/elementwise.c): the launches behind the stubs of
 * <cubind/elementwise.cuh>: the shape picked for cfg NULL (seen through the fake's doublify,
 * which doubles a[i] for i below both its int n and the threads launched), n == 0, a
 * reduction's scratch (shared on the legacy stream; elsewhere taken, zeroed and given back on
 * every path), the checks and messages, and
 * an element map's _call in chunks on several streams (pipeline.c).
 */
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

void cubind__set_chunk_bytes(size_t bytes); /* runtime/src/pipeline.h: 0 restores the default */
void cubind__set_staging(int on, size_t min_bytes, unsigned threads, /* runtime/src/staging.h */
                         size_t start_bytes);

/* doublify through the elementwise entry: `count` is the shape's n, `n` the kernel's int. */
static cubind_status ew_launch(const cubind_config *cfg, float *a, int n, size_t count) {
  void *args[2] = {&a, &n};
  cubind_elementwise_shape shape = {count, CUBIND_NO_SCRATCH, 0, 1, 0};
  return cubind_module_launch_elementwise(&vec_module, 0, cfg, args, &shape);
}

/* doublify as a "reduction": its pointer slot receives the scratch (n 0: the fake leaves it). */
static cubind_status reduce_launch(const cubind_config *cfg, size_t count) {
  float *a = NULL;
  int n = 0;
  void *args[2] = {&a, &n};
  cubind_elementwise_shape shape = {count, 0, 8, 1, 0};
  return cubind_module_launch_elementwise(&vec_module, 0, cfg, args, &shape);
}

static void shape_for_cfg_null(void **state) {
  float host[1000], *dev = NULL;
  int i;
  (void)state;
  for (i = 0; i < 1000; i++) host[i] = 1.0f;
  assert_int_equal(cubind_malloc((void **)&dev, sizeof host), CUBIND_SUCCESS);
  assert_int_equal(cubind_to_device(dev, host, sizeof host), CUBIND_SUCCESS);
  /* n 300: ceil(300 / 256) = 2 blocks of 256, so 512 threads double a[0..512) */
  assert_int_equal(ew_launch(NULL, dev, 1000, 300), CUBIND_SUCCESS);
  assert_int_equal(cubind_from_device(host, dev, sizeof host), CUBIND_SUCCESS);
  assert_true(host[511] == 2.0f && host[512] == 1.0f);
  /* a large n: the device's full wave (108 x 8 blocks here), which covers all 1000 */
  assert_int_equal(ew_launch(NULL, dev, 1000, (size_t)1 << 40), CUBIND_SUCCESS);
  assert_int_equal(cubind_from_device(host, dev, sizeof host), CUBIND_SUCCESS);
  assert_true(host[0] == 4.0f && host[999] == 2.0f);
  /* the occupancy is asked once, at the first launch, then cached in the kernel's slot */
  assert_int_equal(fake_cuda_calls("cuOccupancyMaxActiveBlocksPerMultiprocessor"), 1);
  /* a given cfg is used as it is */
  {
    cubind_config cfg = cubind_config_1d(100, 64);
    assert_int_equal(ew_launch(&cfg, dev, 1000, 1000), CUBIND_SUCCESS);
    assert_int_equal(cubind_from_device(host, dev, sizeof host), CUBIND_SUCCESS);
    assert_true(host[127] == 8.0f && host[128] == 4.0f);
  }
  assert_int_equal(cubind_free(dev), CUBIND_SUCCESS);
}

static void zero_elements(void **state) {
  cubind_config cfg = cubind_config_1d(10, 0); /* never looked at: nothing runs */
  float a = 1.0f;
  void *args[2];
  int n = 1;
  cubind_host_arg host = {0, CUBIND_DIRECTION_INOUT, &a, 0, sizeof(float), "n"};
  cubind_elementwise_shape shape = {0, CUBIND_NO_SCRATCH, 0, 1, 0};
  float *p = &a;
  (void)state;
  args[0] = &p;
  args[1] = &n;
  assert_int_equal(ew_launch(NULL, NULL, 0, 0), CUBIND_SUCCESS);
  assert_int_equal(ew_launch(&cfg, NULL, 0, 0), CUBIND_SUCCESS);
  assert_int_equal(cubind_module_call_elementwise(&vec_module, 0, NULL, args, &host, 1, &shape),
                   CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), 0);
  assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync"), 0);
  assert_true(a == 1.0f);
  /* nothing runs, but bad host arguments are still refused, as by a call that runs (they
     passed as success) */
  host.count = CUBIND_COUNT_INVALID;
  host.count_text = "rows - 5";
  assert_int_equal(cubind_module_call_elementwise(&vec_module, 0, NULL, args, &host, 1, &shape),
                   CUBIND_ERROR_SIZE_OVERFLOW);
  assert_contains(cubind_last_error(), "'rows - 5' is negative or does not fit in size_t");
  host.count = 1;
  host.host = NULL;
  assert_int_equal(cubind_module_call_elementwise(&vec_module, 0, &cfg, args, &host, 1, &shape),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "the host buffer is NULL but holds 1 elements");
  assert_int_equal(cubind_module_call_elementwise(&vec_module, 0, NULL, args, NULL, 1, &shape),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "host_args is NULL");
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), 0);
}

/*
 * The legacy default stream's reductions share one scratch per device, made and zeroed at the
 * process's first (this test's first launch; the tests before it reduce nothing): no
 * allocation, memset or free per call. Other streams, and grids whose partials do not fit it,
 * take their scratch per call from cubind's pool and give it back.
 */
static void reduction_scratch(void **state) {
  cubind_config cfg = cubind_config_1d(1000, 256); /* stream NULL: the legacy stream */
  CUstream stream = NULL;
  long live;
  (void)state;
  assert_int_equal(reduce_launch(NULL, 1000), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuMemAllocFromPoolAsync"), 1); /* the shared scratch */
  assert_int_equal(fake_cuda_calls("cuMemsetD32Async"), 1);         /* zeroed once */
  assert_int_equal(reduce_launch(NULL, 0), CUBIND_SUCCESS); /* n 0 launches: it writes neutral */
  assert_int_equal(reduce_launch(&cfg, 1000), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), 3);
  assert_int_equal(fake_cuda_calls("cuMemAllocFromPoolAsync"), 1);
  assert_int_equal(fake_cuda_calls("cuMemsetD32Async"), 1);
  assert_int_equal(fake_cuda_calls("cuMemFreeAsync"), 0);
  assert_int_equal(fake_cuda_calls("cuMemAllocAsync"), 0);
  assert_true(fake_cuda_calls("cuMemPoolCreate") <= 1); /* once per device and process */
  live = fake_cuda_live_device_allocations();
  /* another stream: per call, the ticket zeroed there, the scratch given back */
  assert_int_equal(cubind_stream_create(&stream), CUBIND_SUCCESS);
  cfg.stream = stream;
  assert_int_equal(reduce_launch(&cfg, 1000), CUBIND_SUCCESS);
  assert_int_equal(reduce_launch(&cfg, 1000), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuMemAllocFromPoolAsync"), 3);
  assert_int_equal(fake_cuda_calls("cuMemsetD32Async"), 3);
  assert_int_equal(fake_cuda_calls("cuMemFreeAsync"), 2);
  assert_int_equal(fake_cuda_live_device_allocations(), live);
  /* partials beyond the shared 64 KiB (10,000 blocks of 8 bytes): per call as well */
  cfg.stream = NULL;
  cfg.grid.x = 10000;
  assert_int_equal(reduce_launch(&cfg, 1000), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuMemAllocFromPoolAsync"), 4);
  assert_int_equal(fake_cuda_calls("cuMemFreeAsync"), 3);
  assert_int_equal(fake_cuda_live_device_allocations(), live);
  /* the block size the kernels are written for, a 1-D grid */
  cfg.grid.x = 4;
  cfg.block.x = 128;
  assert_int_equal(reduce_launch(&cfg, 1000), CUBIND_ERROR_INVALID_CONFIG);
  assert_contains(cubind_last_error(), "CUBIND_REDUCTION_BLOCK");
  cfg.block.x = 256;
  cfg.grid.y = 2;
  assert_int_equal(reduce_launch(&cfg, 1000), CUBIND_ERROR_INVALID_CONFIG);
  assert_int_equal(fake_cuda_calls("cuMemAllocFromPoolAsync"), 4);
  assert_int_equal(cubind_stream_destroy(stream), CUBIND_SUCCESS);
}

/* Each step of a per-call scratch failing in turn (on a stream of its own: the legacy
   stream's reductions share a scratch made once). */
static void reduction_failures(void **state) {
  cubind_config cfg = cubind_config_1d(1000, 256);
  long live = fake_cuda_live_device_allocations();
  (void)state;
  assert_int_equal(cubind_stream_create(&cfg.stream), CUBIND_SUCCESS);
  fake_cuda_fail("cuMemAllocFromPoolAsync", 0, CUDA_ERROR_OUT_OF_MEMORY, 0);
  assert_int_equal(reduce_launch(&cfg, 1000), CUBIND_ERROR_OUT_OF_MEMORY);
  assert_contains(cubind_last_error(), "the reduction's cuMemAllocFromPoolAsync of its scratch");
  assert_contains(cubind_last_error(), "CUDA_ERROR_OUT_OF_MEMORY");
  fake_cuda_fail("cuMemsetD32Async", 0, CUDA_ERROR_UNKNOWN, 0);
  assert_int_not_equal(reduce_launch(&cfg, 1000), CUBIND_SUCCESS);
  assert_contains(cubind_last_error(), "cuMemsetD32Async");
  assert_int_equal(fake_cuda_live_device_allocations(), live); /* given back */
  fake_cuda_fail("cuLaunchKernel", 0, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 0);
  assert_int_not_equal(reduce_launch(&cfg, 1000), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_device_allocations(), live);
  assert_int_equal(cubind_stream_destroy(cfg.stream), CUBIND_SUCCESS);
}

static void argument_checks(void **state) {
  float *a = NULL;
  int n = 0;
  void *args[2] = {&a, &n};
  cubind_elementwise_shape bad_scratch = {10, 2, 4, 1, 0}, no_size = {10, 0, 0, 1, 0};
  (void)state;
  assert_int_equal(cubind_module_launch_elementwise(&vec_module, 0, NULL, args, NULL),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "cubind_module_launch_elementwise");
  assert_int_equal(cubind_module_launch_elementwise(&vec_module, 0, NULL, args, &bad_scratch),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_int_equal(cubind_module_launch_elementwise(&vec_module, 0, NULL, args, &no_size),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_int_equal(cubind_module_launch_elementwise(NULL, 0, NULL, args, &no_size),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_int_equal(cubind_module_call_elementwise(&vec_module, 9, NULL, args, NULL, 0, &no_size),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "cubind_module_call_elementwise");
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), 0);
}

/*
 * doublify's _call as an element map: `a` INOUT with n elements. The kernel's int n is read from
 * the low bytes of the size_t the runtime writes (little-endian), as the fake reads an int.
 */
static cubind_status map_call(float *a, size_t n, size_t table_count) {
  size_t count = n;
  void *args[2];
  cubind_host_arg host = {0, CUBIND_DIRECTION_INOUT, a, table_count, sizeof(float), "n"};
  cubind_elementwise_shape shape = {n, CUBIND_NO_SCRATCH, 0, 1, 1};
  args[0] = &a;
  args[1] = &count;
  return cubind_module_call_elementwise(&vec_module, 0, NULL, args, &host, 1, &shape);
}

static void chunked_call(void **state) {
  static float a[10001]; /* the table case below reads 10001 */
  size_t i, bad = 0;
  (void)state;
  cubind__set_chunk_bytes(4096); /* 1024 floats a chunk: 10 chunks on 3 streams */
  for (i = 0; i < 10000; i++) a[i] = (float)i;
  assert_int_equal(map_call(a, 10000, 10000), CUBIND_SUCCESS);
  for (i = 0; i < 10000; i++) bad += a[i] != 2.0f * (float)i;
  assert_int_equal(bad, 0);
  assert_int_equal(fake_cuda_calls("cuStreamCreate"), 3);
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), 10);
  assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync"), 10);
  assert_int_equal(fake_cuda_calls("cuMemcpyDtoHAsync"), 10);
  assert_int_equal(fake_cuda_live_streams(), 0);
  /* a buffer of another count (a table): one pass */
  assert_int_equal(map_call(a, 10000, 10001), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuStreamCreate"), 3);
  assert_true(a[9999] == 4.0f * 9999.0f);
  /* small: one pass */
  assert_int_equal(map_call(a, 2048, 2048), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuStreamCreate"), 3);
  /* a failing copy: reported, every stream finished and destroyed */
  fake_cuda_fail("cuMemcpyHtoDAsync", 4, CUDA_ERROR_UNKNOWN, 0);
  assert_int_not_equal(map_call(a, 10000, 10000), CUBIND_SUCCESS);
  assert_contains(cubind_last_error(), "in chunks of 1024 elements: cuMemcpyHtoDAsync");
  assert_int_equal(fake_cuda_live_streams(), 0);
  assert_int_equal(fake_cuda_live_registrations(), 0);
  cubind__set_chunk_bytes(0);
}

/*
 * The same over a pageable buffer through the staging threads (3 here): each step copies one
 * chunk in and the last one out, every element doubled once; a failing copy in either
 * direction is reported with the chunk size and the step, and the threads work again after.
 */
static void chunked_call_staged(void **state) {
  enum { N = 100003 }; /* 25 chunks of 4096 floats, the last one short */
  float *a = malloc(N * sizeof *a);
  long streams = fake_cuda_live_streams(), host = fake_cuda_live_host_allocations();
  size_t i, bad = 0;
  (void)state;
  assert_non_null(a);
  cubind__set_staging(1, 4096, 3, 0);
  cubind__set_chunk_bytes(16384);
  for (i = 0; i < N; i++) a[i] = (float)i;
  assert_int_equal(map_call(a, N, N), CUBIND_SUCCESS);
  for (i = 0; i < N; i++) bad += a[i] != 2.0f * (float)i;
  assert_int_equal(bad, 0);
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), 25);
  assert_int_equal(fake_cuda_calls("cuMemHostRegister"), 0);
  assert_int_equal(fake_cuda_calls("cuMemHostAlloc"), 1);
  assert_true(fake_cuda_calls("cuMemcpyHtoDAsync") >= 25);
  assert_int_equal(fake_cuda_calls("cuMemcpyDtoHAsync"), fake_cuda_calls("cuMemcpyHtoDAsync"));
  assert_true(fake_cuda_calls("cuStreamWaitEvent") >= 1); /* copies out after their kernel */
  fake_cuda_fail("cuMemcpyDtoHAsync", 7, CUDA_ERROR_UNKNOWN, 0);
  assert_int_not_equal(map_call(a, N, N), CUBIND_SUCCESS);
  assert_contains(cubind_last_error(), "in chunks of 4096 elements: cuMemcpyDtoHAsync into a "
                                       "staging slot failed: CUDA_ERROR_UNKNOWN");
  fake_cuda_fail("cuMemcpyHtoDAsync", 20, CUDA_ERROR_UNKNOWN, 0);
  assert_int_not_equal(map_call(a, N, N), CUBIND_SUCCESS);
  assert_contains(cubind_last_error(), "cuMemcpyHtoDAsync from a staging slot failed");
  for (i = 0; i < N; i++) a[i] = (float)i;
  assert_int_equal(map_call(a, N, N), CUBIND_SUCCESS);
  for (i = 0, bad = 0; i < N; i++) bad += a[i] != 2.0f * (float)i;
  assert_int_equal(bad, 0);
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_streams(), streams);
  assert_int_equal(fake_cuda_live_host_allocations(), host);
  assert_int_equal(fake_cuda_live_registrations(), 0);
  cubind__set_chunk_bytes(0);
  cubind__set_staging(1, (size_t)1 << 20, 2, (size_t)256 << 20); /* the defaults */
  free(a);
}

/*
 * Runs `scenario` in a child process, which has not loaded the driver or made cubind's
 * per-process state yet (the pools and the legacy stream's scratch are made once per process);
 * the test passes when it returns 1. `what` names it in the child's message.
 */
static void in_fresh_process(int (*scenario)(void), const char *what) {
  int status = 0;
  pid_t pid;
  fflush(NULL);
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int ok = scenario();
    if (!ok) fprintf(stderr, "%s: %s\n", what, cubind_last_error());
    fflush(NULL);
    _exit(ok ? 0 : 1);
  }
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Without the memory pool API (FAKE_CUDA_HIDE): scratch from the device's default pool. */
static int default_pool_scenario(void) {
  setenv("FAKE_CUDA_HIDE", "cuMemPoolCreate", 1);
  use_fake_driver();
  return reduce_launch(NULL, 1000) == CUBIND_SUCCESS &&
         fake_cuda_calls("cuMemAllocAsync") == 1 &&
         fake_cuda_calls("cuMemAllocFromPoolAsync") == 0 &&
         fake_cuda_live_device_allocations() == 0;
}

/* The legacy stream's shared scratch cannot be made (its allocation fails): every
   legacy-stream reduction then takes its scratch per call. */
static int legacy_scratch_fails_scenario(void) {
  use_fake_driver();
  fake_cuda_fail("cuMemAllocFromPoolAsync", 0, CUDA_ERROR_OUT_OF_MEMORY, 0); /* the first */
  return reduce_launch(NULL, 1000) == CUBIND_SUCCESS &&
         reduce_launch(NULL, 1000) == CUBIND_SUCCESS &&
         fake_cuda_calls("cuMemAllocFromPoolAsync") == 3 && /* the failed one, then per call */
         fake_cuda_calls("cuMemsetD32Async") == 2 && fake_cuda_calls("cuMemFreeAsync") == 2 &&
         fake_cuda_live_device_allocations() == 0;
}

static void reduction_default_pool(void **state) {
  (void)state;
  in_fresh_process(default_pool_scenario, "default pool");
}

static void reduction_legacy_scratch_fails(void **state) {
  (void)state;
  in_fresh_process(legacy_scratch_fails_scenario, "legacy scratch failing");
}

int main(void) {
  /* First, while this process has not initialised cubind (the child inherits nothing). */
  const struct CMUnitTest before[] = {cmocka_unit_test(reduction_default_pool),
                                      cmocka_unit_test(reduction_legacy_scratch_fails)};
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(shape_for_cfg_null, test_setup),
      cmocka_unit_test_setup(zero_elements, test_setup),
      cmocka_unit_test_setup(reduction_scratch, test_setup),
      cmocka_unit_test_setup(reduction_failures, test_setup),
      cmocka_unit_test_setup(argument_checks, test_setup),
      cmocka_unit_test_setup(chunked_call, test_setup),
      cmocka_unit_test_setup(chunked_call_staged, test_setup),
  };
  int failed = cmocka_run_group_tests(before, NULL, NULL);
  return failed + RUN_RUNTIME_TESTS(tests, 1);
}
