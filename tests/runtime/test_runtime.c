/*
 * test_runtime.c: libcubind against the fake driver: launches and _call round trips, the
 * configuration checks, scratch reuse, count 0 and overflow, the ABI and no-binary checks, and a
 * failure injected into every driver call the runtime makes after initialisation, each checked
 * for status, message and leaks. Initialisation failures are in test_init.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka.h needs the headers above */
#include <cmocka.h>

#include "test_support.h"

/* Defined in the runtime (hidden in the shared library; these tests link the static one). */
void cubind__fatbin_archs(const unsigned char *image, size_t size, char *buf, size_t buf_size);
void cubind__set_staging(int on, size_t min_bytes); /* pageable registration; smallest buffer */

#define assert_contains(haystack, needle)                                                          \
  do {                                                                                             \
    if (!strstr((haystack), (needle)))                                                             \
      fail_msg("expected \"%s\" in the message: %s", (needle), (haystack));                        \
  } while (0)

/* A pool of fresh module descriptors, so that each load-time test loads for the first time. */
static cubind_module module_pool[64];
static unsigned modules_used;

static cubind_module *fresh_module(const cubind_kernel_info *kernels, unsigned n) {
  cubind_module *m = &module_pool[modules_used++];
  assert_true(modules_used <= 64);
  *m = vec_module;
  m->state = NULL;
  m->next = NULL;
  m->kernels = kernels;
  m->num_kernels = n;
  return m;
}

static int group_setup(void **state) {
  (void)state;
  use_fake_driver();
  return cubind_init() == CUBIND_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state) {
  (void)state;
  return cubind_release_scratch() == CUBIND_SUCCESS ? 0 : -1;
}

static int test_setup(void **state) {
  (void)state;
  fake_cuda_reset();
  fake_cuda_set_compute_capability(8, 0);
  return 0;
}

/* ---- basics -------------------------------------------------------------------------------- */

static void status_table(void **state) {
  (void)state;
  assert_string_equal(cubind_status_name(CUBIND_ERROR_LAUNCH), "CUBIND_ERROR_LAUNCH");
  assert_string_equal(cubind_status_string(CUBIND_SUCCESS), "success");
  assert_string_equal(cubind_status_name((cubind_status)999), "CUBIND_UNKNOWN_STATUS");
  assert_string_equal(cubind_status_string((cubind_status)999), "unknown cubind status");
}

static void config_1d(void **state) {
  cubind_config c = cubind_config_1d(1000, 256);
  (void)state;
  assert_int_equal(c.grid.x, 4);
  assert_int_equal(c.block.x, 256);
  assert_int_equal(c.grid.y * c.grid.z * c.block.y * c.block.z, 1);
  assert_int_equal(cubind_config_1d(0, 128).grid.x, 1);
  assert_int_equal(cubind_config_1d(SIZE_MAX, 1).grid.x, 0xFFFFFFFFu);
  c = cubind_config_1d(10, 0);
  assert_int_equal(noop_launch(&c), CUBIND_ERROR_INVALID_CONFIG);
}

static void devices(void **state) {
  int count = 0, device = -1;
  (void)state;
  assert_int_equal(cubind_device_count(&count), CUBIND_SUCCESS);
  assert_int_equal(count, 4); /* FAKE_CUDA_DEVICES, set in main */
  assert_int_equal(cubind_get_device(&device), CUBIND_SUCCESS);
  assert_int_equal(device, 0);
  assert_int_equal(cubind_set_device(7), CUBIND_ERROR_INVALID_DEVICE);
  assert_contains(cubind_last_error(), "device 7 does not exist (4 devices visible)");
  assert_int_equal(cubind_set_driver_library("/elsewhere"), CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "already loaded");
}

static void launch_round_trip(void **state) {
  float host[1000], *dev = NULL;
  cubind_config cfg = cubind_config_1d(1000, 256);
  int i;
  (void)state;
  for (i = 0; i < 1000; i++)
    host[i] = (float)i;
  assert_int_equal(cubind_malloc((void **)&dev, sizeof host), CUBIND_SUCCESS);
  assert_int_equal(cubind_to_device(dev, host, sizeof host), CUBIND_SUCCESS);
  assert_int_equal(doublify_launch(&cfg, dev, 1000), CUBIND_SUCCESS);
  assert_int_equal(cubind_synchronize(), CUBIND_SUCCESS);
  assert_int_equal(cubind_from_device(host, dev, sizeof host), CUBIND_SUCCESS);
  for (i = 0; i < 1000; i++)
    assert_true(host[i] == 2.0f * (float)i);
  assert_int_equal(cubind_memset_d8(dev, 0, sizeof host), CUBIND_SUCCESS);
  assert_int_equal(cubind_from_device(host, dev, sizeof host), CUBIND_SUCCESS);
  assert_true(host[999] == 0.0f);
  assert_int_equal(cubind_free(dev), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_device_allocations(), 0);
}

/* __constant__ / __device__ variables through cubind_module_global_copy (as the generated
   <module>_<var>_to_device / _from_device call it). */
static const cubind_global_info var_globals[] = {{"coeffs", "coeffs"}, {"gone", "gone"}};
static cubind_module var_module = {CUBIND_ABI_VERSION, "vars", cubind_fatbin_vec,
                                   &cubind_fatbin_vec_size, vec_kernels, 3, NULL, NULL,
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
  lookups = fake_cuda_calls("cuLibraryGetGlobal");
  assert_int_equal(cubind_module_global_copy(&var_module, 0, out, 2, sizeof(double),
                                             CUBIND_COPY_FROM_DEVICE),
                   CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuLibraryGetGlobal"), lookups);
  assert_int_equal(cubind_module_global_copy(&var_module, 0, in, 9, sizeof(double),
                                             CUBIND_COPY_TO_DEVICE),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "vars_coeffs_to_device: 9 elements of 8 bytes (72 bytes) do not fit in "
                 "variable 'coeffs' of module vars (64 bytes)");
  assert_int_equal(cubind_module_global_copy(&var_module, 1, in, 1, sizeof(double),
                                             CUBIND_COPY_TO_DEVICE),
                   CUBIND_ERROR_KERNEL_NOT_FOUND);
  assert_contains(cubind_last_error(), "variable 'gone' (symbol 'gone') in module vars");
  assert_int_equal(cubind_module_global_copy(&var_module, 0, NULL, 0, sizeof(double),
                                             CUBIND_COPY_TO_DEVICE),
                   CUBIND_SUCCESS);
}

/* Cluster and cooperative launches go through cuLaunchKernelEx after the runtime's checks. */
static void launch_attributes(void **state) {
  float host[1024];
  cubind_config cfg = cubind_config_1d(1024, 128);
  unsigned long ex, plain;
  int i;
  (void)state;
  for (i = 0; i < 1024; i++)
    host[i] = (float)i;
  cfg.cluster.x = 2;
  ex = fake_cuda_calls("cuLaunchKernelEx");
  assert_int_equal(doublify_call(&cfg, host, 1024), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuLaunchKernelEx"), ex + 1);
  for (i = 0; i < 1024; i++)
    assert_true(host[i] == 2.0f * (float)i);
  cfg.cluster.x = 3; /* 8 blocks */
  assert_int_equal(doublify_call(&cfg, host, 1024), CUBIND_ERROR_INVALID_CONFIG);
  assert_contains(cubind_last_error(), "grid.x=8 is not a multiple of the cluster's x dimension 3");
  cfg.cluster.x = 0;
  cfg.flags = 0x80;
  assert_int_equal(doublify_call(&cfg, host, 1024), CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "unknown launch flags 0x80");
  cfg.flags = CUBIND_LAUNCH_COOPERATIVE;
  assert_int_equal(doublify_call(&cfg, host, 1024), CUBIND_SUCCESS);
  cfg.flags = 0; /* a plain config stays on cuLaunchKernel */
  ex = fake_cuda_calls("cuLaunchKernelEx");
  plain = fake_cuda_calls("cuLaunchKernel");
  assert_int_equal(doublify_call(&cfg, host, 1024), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_calls("cuLaunchKernelEx"), ex);
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), plain + 1);
}

static void memory_api(void **state) {
  float *pinned = NULL, *dev = NULL;
  CUstream s = NULL;
  cubind_timer timer;
  float ms = -1.0f;
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
  assert_int_equal(cubind_timer_create(&timer), CUBIND_SUCCESS);
  assert_int_equal(cubind_timer_start(&timer, s), CUBIND_SUCCESS);
  assert_int_equal(cubind_to_device_async(dev, pinned, 64 * sizeof(float), s), CUBIND_SUCCESS);
  memset(pinned, 0, 64 * sizeof(float));
  assert_int_equal(cubind_from_device_async(pinned, dev, 64 * sizeof(float), s), CUBIND_SUCCESS);
  assert_int_equal(cubind_timer_stop(&timer, &ms), CUBIND_SUCCESS);
  assert_true(ms >= 0.0f);
  assert_int_equal(cubind_stream_synchronize(s), CUBIND_SUCCESS);
  assert_true(pinned[63] == 63.0f);
  assert_int_equal(cubind_to_device(dev, NULL, 4), CUBIND_ERROR_INVALID_VALUE);
  assert_int_equal(cubind_to_device(dev, NULL, 0), CUBIND_SUCCESS);
  assert_int_equal(cubind_timer_destroy(&timer), CUBIND_SUCCESS);
  assert_int_equal(cubind_timer_destroy(&timer), CUBIND_SUCCESS); /* zeroed: no-op */
  assert_int_equal(cubind_stream_destroy(s), CUBIND_SUCCESS);
  assert_int_equal(cubind_free(dev), CUBIND_SUCCESS);
  assert_int_equal(cubind_free_host(pinned), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_device_allocations() + fake_cuda_live_host_allocations() +
                       fake_cuda_live_streams() + fake_cuda_live_events(),
                   0);
}

/* ---- the _call path ------------------------------------------------------------------------ */

static void call_round_trip_and_scratch_reuse(void **state) {
  float a[3000];
  cubind_config cfg = cubind_config_1d(3000, 128);
  int i;
  (void)state;
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  fake_cuda_reset();
  for (i = 0; i < 3000; i++)
    a[i] = (float)i;
  assert_int_equal(doublify_call(&cfg, a, 3000), CUBIND_SUCCESS);
  for (i = 0; i < 3000; i++)
    assert_true(a[i] == 2.0f * (float)i);
  assert_int_equal(fake_cuda_calls("cuMemAlloc"), 1);
  /* The second call, and a smaller one, reuse the scratch: no allocation, no free. */
  assert_int_equal(doublify_call(&cfg, a, 3000), CUBIND_SUCCESS);
  assert_int_equal(doublify_call(&cfg, a, 10), CUBIND_SUCCESS);
  assert_true(a[0] == 0.0f && a[5] == 40.0f && a[2999] == 4.0f * 2999.0f);
  assert_int_equal(fake_cuda_calls("cuMemAlloc"), 1);
  assert_int_equal(fake_cuda_calls("cuMemFree"), 0);
  assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync"), 3);
  assert_int_equal(fake_cuda_calls("cuMemcpyDtoHAsync"), 3);
  assert_int_equal(fake_cuda_calls("cuStreamSynchronize"), 3);
  assert_int_equal(fake_cuda_live_device_allocations(), 1);
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_device_allocations(), 0);
}

static void call_count_zero(void **state) {
  float *a = (float *)(uintptr_t)0x1234; /* never dereferenced: nothing to copy */
  int n = 0;
  void *args[2] = {&a, &n};
  cubind_host_arg host[1] = {{0, CUBIND_DIRECTION_INOUT, a, 0, sizeof(float)}};
  cubind_config cfg = cubind_config_1d(1, 32);
  (void)state;
  assert_int_equal(cubind_module_call(&vec_module, 0, &cfg, args, host, 1), CUBIND_SUCCESS);
  assert_null(a); /* the kernel got a NULL device pointer */
  assert_int_equal(fake_cuda_calls("cuMemAlloc"), 0);
  assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync") + fake_cuda_calls("cuMemcpyDtoHAsync"), 0);
}

static void call_size_overflow(void **state) {
  float *a = NULL;
  int n = 0;
  void *args[2] = {&a, &n};
  cubind_host_arg host[1] = {{0, CUBIND_DIRECTION_IN, (void *)&n, SIZE_MAX / 2, sizeof(float)}};
  cubind_config cfg = cubind_config_1d(1, 32);
  (void)state;
  assert_int_equal(cubind_module_call(&vec_module, 0, &cfg, args, host, 1),
                   CUBIND_ERROR_SIZE_OVERFLOW);
  assert_contains(cubind_last_error(), "doublify_call");
  assert_contains(cubind_last_error(), "parameter 0 'a'");
  assert_contains(cubind_last_error(), "overflow");
  assert_int_equal(fake_cuda_calls("cuMemAlloc") + fake_cuda_calls("cuLaunchKernel"), 0);
  /* A NULL host buffer with elements, and a parameter index out of range, are refused too. */
  host[0].count = 4;
  host[0].host = NULL;
  assert_int_equal(cubind_module_call(&vec_module, 0, &cfg, args, host, 1),
                   CUBIND_ERROR_INVALID_VALUE);
  host[0].host = &n;
  host[0].param_index = 5;
  assert_int_equal(cubind_module_call(&vec_module, 0, &cfg, args, host, 1),
                   CUBIND_ERROR_INVALID_VALUE);
}

/* ---- pageable staging ---------------------------------------------------------------------- */

#define STAGING_MIN 8192 /* the smallest registered buffer in these tests: 2048 floats */

typedef struct staged_job {
  size_t n;           /* floats */
  int pinned;         /* cubind_malloc_host instead of malloc */
  unsigned direction; /* CUBIND_DIRECTION_* */
} staged_job;

/* One _call of doublify over n floats (i % 1000) with the given memory and direction; checked. */
static cubind_status staged_scenario(void *arg) {
  const staged_job *job = arg;
  float *a = NULL, *dev = NULL;
  int n = (int)job->n;
  void *args[2] = {&dev, &n};
  cubind_host_arg host[1];
  cubind_config cfg = cubind_config_1d(job->n ? job->n : 1, 256);
  cubind_status status;
  size_t i;
  if (job->pinned) {
    if (cubind_malloc_host((void **)&a, job->n * sizeof(float) + 4) != CUBIND_SUCCESS)
      return CUBIND_ERROR_CUDA;
  } else if (!(a = malloc(job->n * sizeof(float) + 4))) {
    return CUBIND_ERROR_OUT_OF_MEMORY;
  }
  for (i = 0; i < job->n; i++)
    a[i] = (float)(i % 1000);
  host[0].param_index = 0;
  host[0].direction = job->direction;
  host[0].host = a;
  host[0].count = job->n;
  host[0].elem_size = sizeof(float);
  status = cubind_module_call(&vec_module, 0, &cfg, args, host, 1);
  for (i = 0; status == CUBIND_SUCCESS && i < job->n; i++) {
    float want = (float)(i % 1000) * (job->direction & CUBIND_DIRECTION_OUT ? 2.0f : 1.0f);
    if (a[i] != want) {
      fprintf(stderr, "element %zu of %zu: %g, expected %g\n", i, job->n, (double)a[i],
              (double)want);
      status = CUBIND_ERROR_CUDA;
    }
  }
  if (job->pinned)
    (void)cubind_free_host(a);
  else
    free(a);
  return status;
}

/*
 * Pageable buffers from the threshold up are registered for the call (cuMemHostRegister), copied
 * directly, one copy each way, and unregistered before _call returns; the fake defers every async
 * copy until a sync says it is done (as a GPU would), so a result read too early shows as wrong
 * data. Smaller buffers, page-locked ones and count 0 take the plain path, as does everything
 * with staging off (CUBIND_PAGEABLE_STAGING=0).
 */
static void staging_round_trips(void **state) {
  static const size_t sizes[] = {0, 1, 1023, 2047, 2048, 2049, 10 * 1024 + 3};
  static const unsigned directions[] = {CUBIND_DIRECTION_INOUT, CUBIND_DIRECTION_IN};
  size_t i, d;
  (void)state;
  cubind__set_staging(1, STAGING_MIN);
  fake_cuda_defer_async_copies(1);
  for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (d = 0; d < sizeof directions / sizeof directions[0]; d++) {
      size_t bytes = sizes[i] * sizeof(float);
      unsigned direction = directions[d];
      staged_job job = {sizes[i], 0, direction};
      outcome o;
      long registrations = fake_cuda_live_registrations(), host = fake_cuda_live_host_allocations();
      fake_cuda_reset();
      o = in_new_thread(staged_scenario, &job);
      if (o.status != CUBIND_SUCCESS) fail_msg("%zu floats: %s", sizes[i], o.message);
      assert_int_equal(fake_cuda_calls("cuMemHostRegister"), bytes >= STAGING_MIN ? 1 : 0);
      assert_int_equal(fake_cuda_calls("cuMemHostUnregister"), bytes >= STAGING_MIN ? 1 : 0);
      assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync"),
                       bytes && (direction & CUBIND_DIRECTION_IN) ? 1 : 0);
      assert_int_equal(fake_cuda_calls("cuMemcpyDtoHAsync"),
                       bytes && (direction & CUBIND_DIRECTION_OUT) ? 1 : 0);
      assert_int_equal(fake_cuda_calls("cuMemAllocHost"), 0); /* nothing page-locked of its own */
      assert_int_equal(fake_cuda_live_registrations(), registrations);
      assert_int_equal(fake_cuda_live_host_allocations(), host);
    }
  /* Page-locked: seen as such and not registered, one plain copy each way, whatever the size. */
  {
    staged_job job = {10 * 1024, 1, CUBIND_DIRECTION_INOUT};
    outcome o;
    fake_cuda_reset();
    o = in_new_thread(staged_scenario, &job);
    if (o.status != CUBIND_SUCCESS) fail_msg("pinned: %s", o.message);
    assert_int_equal(fake_cuda_calls("cuPointerGetAttributes"), 1);
    assert_int_equal(fake_cuda_calls("cuMemHostRegister"), 0);
    assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync"), 1);
    assert_int_equal(fake_cuda_calls("cuMemcpyDtoHAsync"), 1);
    assert_int_equal(fake_cuda_calls("cuMemAllocHost"), 1); /* the test's own buffer */
  }
  /* Off (CUBIND_PAGEABLE_STAGING=0): the plain path, the pointer not even looked at. */
  {
    staged_job job = {10 * 1024, 0, CUBIND_DIRECTION_INOUT};
    outcome o;
    cubind__set_staging(0, STAGING_MIN);
    fake_cuda_reset();
    o = in_new_thread(staged_scenario, &job);
    if (o.status != CUBIND_SUCCESS) fail_msg("off: %s", o.message);
    assert_int_equal(fake_cuda_calls("cuPointerGetAttributes"), 0);
    assert_int_equal(fake_cuda_calls("cuMemHostRegister"), 0);
    assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync"), 1);
    assert_int_equal(fake_cuda_calls("cuMemcpyDtoHAsync"), 1);
  }
  fake_cuda_defer_async_copies(0);
  cubind__set_staging(1, (size_t)8 << 20);
}

/*
 * A failure at every step of a registered call: the status and message of the failing call, the
 * registration undone after the synchronisation on every path, nothing leaked. A buffer that
 * cannot be registered, or whose memory type cannot be read, is copied plainly.
 */
static void staging_failures(void **state) {
  static const struct {
    const char *function;
    CUresult result;
    cubind_status expected;
    const char *expect;
  } cases[] = {
      {"cuPointerGetAttributes", CUDA_ERROR_INVALID_VALUE, CUBIND_SUCCESS, NULL}, /* plain */
      {"cuMemHostRegister", CUDA_ERROR_OUT_OF_MEMORY, CUBIND_SUCCESS, NULL},      /* plain */
      {"cuMemcpyHtoDAsync", CUDA_ERROR_INVALID_VALUE, CUBIND_ERROR_MEMCPY,
       "copying parameter 0 'a' (40972 bytes) to the device: cuMemcpyHtoDAsync failed"},
      {"cuLaunchKernel", CUDA_ERROR_INVALID_VALUE, CUBIND_ERROR_LAUNCH, "cuLaunchKernel failed"},
      {"cuMemcpyDtoHAsync", CUDA_ERROR_INVALID_VALUE, CUBIND_ERROR_MEMCPY,
       "copying parameter 0 'a' (40972 bytes) back to the host: cuMemcpyDtoHAsync failed"},
      {"cuStreamSynchronize", CUDA_ERROR_ILLEGAL_ADDRESS, CUBIND_ERROR_KERNEL_FAULT,
       "cuStreamSynchronize failed"},
      {"cuMemHostUnregister", CUDA_ERROR_UNKNOWN, CUBIND_ERROR_CUDA,
       "cuMemHostUnregister of parameter 0 'a' failed: CUDA_ERROR_UNKNOWN"},
  };
  staged_job job = {10 * 1024 + 3, 0, CUBIND_DIRECTION_INOUT};
  size_t i;
  (void)state;
  cubind__set_staging(1, STAGING_MIN);
  fake_cuda_defer_async_copies(1);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    long registrations = fake_cuda_live_registrations(), host = fake_cuda_live_host_allocations();
    long device = fake_cuda_live_device_allocations();
    int plain = cases[i].expected == CUBIND_SUCCESS;
    outcome o;
    fake_cuda_reset();
    fake_cuda_fail(cases[i].function, 1, cases[i].result, 0);
    o = in_new_thread(staged_scenario, &job);
    print_message("[ staging  ] %s -> %s: %s\n", cases[i].function, cubind_status_name(o.status),
                  o.message);
    assert_int_equal(o.status, cases[i].expected);
    if (cases[i].expect) {
      assert_contains(o.message, "doublify_call");
      assert_contains(o.message, "kernel 'doublify' (module vec)");
      assert_contains(o.message, cases[i].expect);
    }
    assert_int_equal(fake_cuda_calls("cuMemHostUnregister"), plain ? 0 : 1);
    assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync"), 1); /* directly, whole */
    assert_true(fake_cuda_calls("cuStreamSynchronize") >= 1);
    assert_int_equal(fake_cuda_calls("cuMemAllocHost"), 0);
    assert_int_equal(fake_cuda_live_registrations(), registrations);
    assert_int_equal(fake_cuda_live_host_allocations(), host);
    assert_int_equal(fake_cuda_live_device_allocations(), device);
  }
  fake_cuda_defer_async_copies(0);
  cubind__set_staging(1, (size_t)8 << 20);
}

/* ---- launch configuration checks ----------------------------------------------------------- */

static void launch_config_checks(void **state) {
  static const struct {
    cubind_config cfg;
    unsigned kernel;
    const char *expect;
  } cases[] = {
      {{{0, 1, 1}, {32, 1, 1}, 0, NULL, {0, 0, 0}, 0}, 0, "grid.x is 0"},
      {{{1, 1, 1}, {32, 0, 1}, 0, NULL, {0, 0, 0}, 0}, 0, "block.y is 0"},
      {{{1, 1, 1}, {2048, 1, 1}, 0, NULL, {0, 0, 0}, 0}, 0, "block.x=2048 exceeds device 0's maximum of 1024"},
      {{{1, 70000, 1}, {32, 1, 1}, 0, NULL, {0, 0, 0}, 0}, 0, "grid.y=70000 exceeds device 0's maximum of 65535"},
      {{{1, 1, 1}, {32, 32, 2}, 0, NULL, {0, 0, 0}, 0},
       0,
       "a block of 2048 threads exceeds the kernel's maximum of 1024"},
      {{{1, 1, 1}, {256, 1, 1}, 0, NULL, {0, 0, 0}, 0},
       2,
       "a block of 256 threads exceeds the kernel's maximum of 128"},
      {{{1, 1, 1}, {32, 1, 1}, 200000, NULL, {0, 0, 0}, 0},
       0,
       "200000 bytes of dynamic shared memory exceed the 100352 bytes"},
  };
  size_t i;
  float *dev = NULL;
  int n = 0;
  void *args[2] = {&dev, &n};
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char dims[128];
    const cubind_config *c = &cases[i].cfg;
    assert_int_equal(cubind_module_launch(&vec_module, cases[i].kernel, c, args),
                     CUBIND_ERROR_INVALID_CONFIG);
    assert_contains(cubind_last_error(), cases[i].expect);
    snprintf(dims, sizeof dims, "grid=(%u,%u,%u) block=(%u,%u,%u) shared=%u", c->grid.x, c->grid.y,
             c->grid.z, c->block.x, c->block.y, c->block.z, c->shared_bytes);
    assert_contains(cubind_last_error(), dims);
    assert_contains(cubind_last_error(), vec_kernels[cases[i].kernel].name);
  }
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), 0);
  /* The most a kernel may have (opt-in limit minus its static 1 KiB) is accepted. */
  {
    cubind_config ok = {{1, 1, 1}, {32, 1, 1}, 101376 - 1024, NULL, {0, 0, 0}, 0};
    assert_int_equal(cubind_module_launch(&vec_module, 0, &ok, args), CUBIND_SUCCESS);
  }
  assert_int_equal(cubind_module_launch(&vec_module, 9, &cases[0].cfg, args),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_int_equal(cubind_module_launch(&vec_module, 0, NULL, args), CUBIND_ERROR_INVALID_VALUE);
  assert_int_equal(cubind_module_launch(&vec_module, 0, &cases[0].cfg, NULL),
                   CUBIND_ERROR_INVALID_VALUE);
}

/* ---- loading ------------------------------------------------------------------------------- */

static cubind_status launch_first_kernel(void *arg) {
  cubind_module *m = arg;
  float *a = NULL;
  int n = 0;
  void *args[2] = {&a, &n};
  cubind_config cfg = {{4, 1, 1}, {256, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  return cubind_module_launch(m, 0, &cfg, m->kernels[0].num_params ? args : NULL);
}

static void load_once_per_device_and_preload(void **state) {
  cubind_module *m = fresh_module(vec_kernels, 3), *p = fresh_module(vec_kernels, 3);
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
  /* Preload: registered modules, on the current device (1): m is loaded, p gets loaded. */
  cubind_module_register(m);
  cubind_module_register(p);
  cubind_module_register(m); /* twice: ignored */
  assert_int_equal(cubind_preload(), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_loads(1) - before1, 2);
  assert_int_equal(launch_first_kernel(p), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_loads(1) - before1, 2);
  assert_int_equal(fake_cuda_loads(0) - before0, 1);
  assert_int_equal(cubind_set_device(0), CUBIND_SUCCESS);
}

/* Launches kernel `index` of `m` (doublify-shaped arguments for kernels that take them). */
static cubind_status launch_kernel(cubind_module *m, unsigned index) {
  float *a = NULL;
  int n = 0;
  void *args[2] = {&a, &n};
  cubind_config cfg = {{4, 1, 1}, {64, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  return cubind_module_launch(m, index, &cfg, m->kernels[index].num_params ? args : NULL);
}

static unsigned long resolutions(void) { return fake_cuda_calls("cuLibraryGetKernel"); }

/* Kernels are resolved on their own first launch, once per device; preload resolves them all. */
static void kernels_resolve_lazily(void **state) {
  cubind_module *m = fresh_module(vec_kernels, 3), *p = fresh_module(vec_kernels, 3);
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
  assert_int_equal(fake_cuda_loads(0) - before0, 1); /* the module is not loaded again */
  assert_int_equal(launch_kernel(m, 1), CUBIND_SUCCESS);
  assert_int_equal(resolutions(), 2);
  /* Another device: its own load and resolution. */
  assert_int_equal(cubind_set_device(2), CUBIND_SUCCESS);
  assert_int_equal(launch_kernel(m, 0), CUBIND_SUCCESS);
  assert_int_equal(resolutions(), 3);
  assert_int_equal(cubind_set_device(0), CUBIND_SUCCESS);
  /* Preload resolves every kernel of a loaded module (m: the one left) and of a new one (p). */
  cubind_module_register(m);
  cubind_module_register(p);
  fake_cuda_reset();
  assert_int_equal(cubind_preload(), CUBIND_SUCCESS);
  assert_true(resolutions() >= 1 + 3); /* other registered modules may add theirs */
  fake_cuda_reset();
  for (i = 0; i < 3; i++) {
    assert_int_equal(launch_kernel(m, (unsigned)i), CUBIND_SUCCESS);
    assert_int_equal(launch_kernel(p, (unsigned)i), CUBIND_SUCCESS);
  }
  assert_int_equal(resolutions(), 0); /* all resolved: the launches took the fast path */
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), 6);
}

/*
 * A failure while resolving a later kernel (B after A) is reported with the same precision as at
 * load; the module stays loaded, A keeps working, and B resolves on a later attempt.
 */
static void lazy_resolution_failures(void **state) {
  static const struct {
    const char *function;
    CUresult result;
    cubind_status expected;
    const char *expect;
  } cases[] = {
      {"cuLibraryGetKernel", CUDA_ERROR_NOT_FOUND, CUBIND_ERROR_KERNEL_NOT_FOUND,
       "cuLibraryGetKernel failed for kernel 'doublify' (symbol 'doublify') in module vec on "
       "device 0: CUDA_ERROR_NOT_FOUND"},
      {"cuKernelGetFunction", CUDA_ERROR_UNKNOWN, CUBIND_ERROR_MODULE_LOAD,
       "cuKernelGetFunction failed for kernel 'doublify'"},
      {"cuKernelGetFunction", CUDA_ERROR_NO_BINARY_FOR_GPU, CUBIND_ERROR_NO_KERNEL_IMAGE,
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
    /* preload reports it too, naming the module (no later test preloads: it stays registered) */
    cubind_module_register(m);
    assert_int_equal(cubind_preload(), CUBIND_ERROR_ABI_MISMATCH);
    assert_contains(cubind_last_error(), "cubind_preload (module vec): kernel 'mismatch'");
  }
}

static void abi_mismatch(void **state) {
  static const cubind_param_info params[] = {{"a", 0, 8}, {"n", 8, 4}};
  static const cubind_kernel_info kernels[] = {{"mismatch", "mismatch", params, 2}};
  static const cubind_kernel_info too_many[] = {{"noop", "noop", params, 2}};
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
  fake_cuda_fail("cuLibraryUnload", 1, CUDA_ERROR_UNKNOWN, 0);
  assert_int_equal(launch_first_kernel(fresh_module(kernels, 1)), CUBIND_ERROR_ABI_MISMATCH);
  assert_contains(cubind_last_error(), "parameter 1 'n'");
  assert_int_equal(fake_cuda_calls("cuLibraryUnload"), 3);
}

static void no_binary_for_gpu(void **state) {
  long images = fake_cuda_live_images();
  (void)state;
  fake_cuda_set_compute_capability(7, 5);
  fake_cuda_fail("cuLibraryLoadData", 1, CUDA_ERROR_NO_BINARY_FOR_GPU, 0);
  assert_int_equal(launch_first_kernel(fresh_module(vec_kernels, 3)), CUBIND_ERROR_NO_KERNEL_IMAGE);
  assert_contains(cubind_last_error(), "doublify_launch");
  assert_contains(cubind_last_error(), "module vec has no code for device 0 (sm_75)");
  assert_contains(cubind_last_error(), "sm_80 (cubin), sm_90 (cubin), sm_90 (PTX)");
  assert_contains(cubind_last_error(), "CUDA_ERROR_NO_BINARY_FOR_GPU");
  assert_int_equal(fake_cuda_live_images(), images);
  /* Lazy loading reports it when the kernel is resolved: same message. */
  fake_cuda_fail("cuKernelGetFunction", 1, CUDA_ERROR_NO_BINARY_FOR_GPU, 0);
  assert_int_equal(launch_first_kernel(fresh_module(vec_kernels, 3)), CUBIND_ERROR_NO_KERNEL_IMAGE);
  assert_contains(cubind_last_error(), "sm_80 (cubin), sm_90 (cubin), sm_90 (PTX)");
  assert_int_equal(fake_cuda_live_images(), images);
}

static void fatbin_parser_is_bounded(void **state) {
  unsigned char copy[512];
  char buf[256];
  size_t len;
  (void)state;
  /* Every truncation of the image, and garbage sizes, stay inside the buffer (valgrind, ASan). */
  for (len = 0; len <= cubind_fatbin_vec_size; len++) {
    unsigned char *exact = malloc(len ? len : 1);
    memcpy(exact, cubind_fatbin_vec, len);
    cubind__fatbin_archs(exact, len, buf, sizeof buf);
    free(exact);
  }
  memcpy(copy, cubind_fatbin_vec, sizeof copy);
  memset(copy + 8, 0xFF, 8);  /* container payload size: huge */
  memset(copy + 20, 0xFF, 4); /* first entry's header size: huge */
  cubind__fatbin_archs(copy, cubind_fatbin_vec_size, buf, sizeof buf);
  cubind__fatbin_archs((const unsigned char *)"not a fatbin", 12, buf, sizeof buf);
  assert_contains(buf, "no recognisable architectures");
  cubind__fatbin_archs(cubind_fatbin_vec, cubind_fatbin_vec_size, buf, 12); /* tiny buffer */
  assert_int_equal(strlen(buf), 11);
}

static void version_and_symbol_checks(void **state) {
  static const cubind_kernel_info missing[] = {{"gone", "_Z4gonePf", doublify_params, 2}};
  cubind_module *m = fresh_module(vec_kernels, 3);
  (void)state;
  m->abi_version = 99;
  assert_int_equal(launch_first_kernel(m), CUBIND_ERROR_VERSION_MISMATCH);
  assert_contains(cubind_last_error(), "module vec was generated for cubind ABI 99");
  assert_int_equal(launch_first_kernel(fresh_module(missing, 1)), CUBIND_ERROR_KERNEL_NOT_FOUND);
  assert_contains(cubind_last_error(), "kernel 'gone' (symbol '_Z4gonePf')");
  assert_contains(cubind_last_error(), "CUDA_ERROR_NOT_FOUND");
}

/* ---- contexts ------------------------------------------------------------------------------ */

static cubind_status user_context_device(void *arg) {
  int device = -1;
  cubind_status status;
  (void)arg;
  fake_cuda_make_current(2);
  status = cubind_get_device(&device);
  if (status == CUBIND_SUCCESS && device != 2) return CUBIND_ERROR_CUDA;
  if (status != CUBIND_SUCCESS) return status;
  /* vec is loaded on device 2's primary context by nobody yet: it loads in this one... */
  status = launch_first_kernel(&vec_module);
  if (status != CUBIND_SUCCESS) return status;
  /* ...and a thread on device 2's primary context is then refused, with a clear message. */
  return CUBIND_SUCCESS;
}

static cubind_status primary_context_on_device_2(void *arg) {
  (void)arg;
  if (cubind_set_device(2) != CUBIND_SUCCESS) return CUBIND_ERROR_CUDA;
  return launch_first_kernel(&vec_module);
}

static void application_contexts(void **state) {
  outcome o;
  (void)state;
  o = in_new_thread(user_context_device, NULL);
  assert_int_equal(o.status, CUBIND_SUCCESS);
  o = in_new_thread(primary_context_on_device_2, NULL);
  assert_int_equal(o.status, CUBIND_ERROR_CONTEXT);
  assert_contains(o.message, "module vec was loaded on device 2 in another context");
}

/* ---- error hook and fault attribution ------------------------------------------------------ */

static int hook_calls;
static cubind_status hook_status;

static void hook(cubind_status status, const char *message, void *user_data) {
  hook_calls++;
  hook_status = status;
  assert_ptr_equal(user_data, &hook_calls);
  assert_true(strlen(message) > 0);
}

static void error_hook_and_fault_attribution(void **state) {
  cubind_config cfg = {{3, 1, 1}, {64, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  float *dev = NULL;
  (void)state;
  cubind_set_error_hook(hook, &hook_calls);
  assert_int_equal(cubind_malloc((void **)&dev, 16), CUBIND_SUCCESS);
  assert_int_equal(doublify_launch(&cfg, dev, 4), CUBIND_SUCCESS);
  fake_cuda_fail("cuCtxSynchronize", 1, CUDA_ERROR_ILLEGAL_ADDRESS, 0);
  assert_int_equal(cubind_synchronize(), CUBIND_ERROR_KERNEL_FAULT);
  assert_contains(cubind_last_error(), "cubind_synchronize: cuCtxSynchronize failed: "
                                       "CUDA_ERROR_ILLEGAL_ADDRESS");
  assert_contains(cubind_last_error(), "last launch was kernel 'doublify' (module vec) "
                                       "grid=(3,1,1) block=(64,1,1) shared=0");
  assert_int_equal(hook_calls, 1);
  assert_int_equal(hook_status, CUBIND_ERROR_KERNEL_FAULT);
  cubind_set_error_hook(NULL, NULL);
  assert_int_equal(cubind_set_device(-1), CUBIND_ERROR_INVALID_DEVICE);
  assert_int_equal(hook_calls, 1);
  assert_int_equal(cubind_free(dev), CUBIND_SUCCESS);
  /* A result the driver cannot name is still reported, by number. */
  fake_cuda_fail("cuMemAlloc", 1, (CUresult)12345, 0);
  assert_int_equal(cubind_malloc((void **)&dev, 16), CUBIND_ERROR_OUT_OF_MEMORY);
  assert_contains(cubind_last_error(),
                  "cubind_malloc: cuMemAlloc of 16 bytes failed: CUDA error 12345");
}

/* ---- a failure in every driver call -------------------------------------------------------- */

static cubind_status scenario_load_and_launch(void *arg) {
  (void)arg;
  return launch_first_kernel(fresh_module(vec_kernels, 3));
}

static cubind_status scenario_call(void *arg) {
  float a[1000] = {0};
  cubind_config cfg = {{4, 1, 1}, {256, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  (void)arg;
  return doublify_call(&cfg, a, 1000);
}

static cubind_status scenario_call_growing(void *arg) {
  static float a[100000];
  cubind_config cfg = {{4, 1, 1}, {256, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  cubind_status status = doublify_call(&cfg, a, 10);
  (void)arg;
  if (status != CUBIND_SUCCESS) return CUBIND_ERROR_CUDA;
  return doublify_call(&cfg, a, 100000);
}

static cubind_status scenario_memory(void *arg) {
  const char *op = arg;
  char host[64] = {0};
  void *dev = NULL, *pinned = NULL;
  cubind_status status = CUBIND_ERROR_CUDA;
  if (strcmp(op, "malloc") == 0) return cubind_malloc(&dev, 64);
  if (strcmp(op, "malloc_host") == 0) return cubind_malloc_host(&pinned, 64);
  if (strcmp(op, "synchronize") == 0) return cubind_synchronize();
  if (strcmp(op, "stream_create") == 0) return cubind_stream_create((CUstream *)&dev);
  if (strcmp(op, "stream_synchronize") == 0) return cubind_stream_synchronize(NULL);
  if (strcmp(op, "timer_create") == 0) {
    cubind_timer t;
    return cubind_timer_create(&t);
  }
  if (strcmp(op, "timer") == 0) {
    cubind_timer t;
    float ms;
    cubind_status destroyed;
    if (cubind_timer_create(&t) != CUBIND_SUCCESS) return CUBIND_ERROR_CUDA;
    status = cubind_timer_start(&t, NULL);
    if (status == CUBIND_SUCCESS) status = cubind_timer_stop(&t, &ms);
    destroyed = cubind_timer_destroy(&t);
    if (destroyed != CUBIND_SUCCESS && cubind_timer_destroy(&t) != CUBIND_SUCCESS)
      return CUBIND_ERROR_CUDA; /* the retry frees what the failed call kept */
    return status != CUBIND_SUCCESS ? status : destroyed;
  }
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
  if (strcmp(op, "device") == 0) {
    int d;
    fake_cuda_make_current(1);
    return cubind_get_device(&d);
  }
  if (strcmp(op, "set_device_3") == 0) return cubind_set_device(3);
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

typedef struct injection {
  const char *function;
  CUresult result;
  cubind_status (*scenario)(void *);
  void *arg;
  cubind_status expected;
  const char *expect[3]; /* further text the message must hold */
} injection;

static const char *const LAUNCH_TEXT[3] = {"doublify_launch", "grid=(4,1,1) block=(256,1,1)",
                                           "module vec"};

static void every_driver_call_fails_cleanly(void **state) {
  static const injection cases[] = {
      /* first launch of a module on a fresh thread: context, loading, checks, launch */
      {"cuCtxGetCurrent",
       CUDA_ERROR_INVALID_CONTEXT,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_CONTEXT,
       {0}},
      {"cuCtxSetCurrent",
       CUDA_ERROR_UNKNOWN,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_CONTEXT,
       {0}},
      {"cuLibraryLoadData",
       CUDA_ERROR_OUT_OF_MEMORY,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_OUT_OF_MEMORY,
       {0}},
      {"cuLibraryLoadData",
       CUDA_ERROR_INVALID_IMAGE,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_MODULE_LOAD,
       {0}},
      {"cuLibraryGetKernel",
       CUDA_ERROR_NOT_FOUND,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_KERNEL_NOT_FOUND,
       {0}},
      {"cuKernelGetFunction",
       CUDA_ERROR_UNKNOWN,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_MODULE_LOAD,
       {0}},
      {"cuFuncGetParamInfo",
       CUDA_ERROR_UNKNOWN,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_MODULE_LOAD,
       {0}},
      {"cuFuncGetAttribute",
       CUDA_ERROR_UNKNOWN,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_MODULE_LOAD,
       {0}},
      {"cuFuncSetAttribute",
       CUDA_ERROR_INVALID_VALUE,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_MODULE_LOAD,
       {0}},
      {"cuDeviceGet",
       CUDA_ERROR_UNKNOWN,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_MODULE_LOAD,
       {0}},
      {"cuDeviceGetAttribute",
       CUDA_ERROR_INVALID_VALUE,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_MODULE_LOAD,
       {0}},
      {"cuLaunchKernel",
       CUDA_ERROR_INVALID_VALUE,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_LAUNCH,
       {"cuLaunchKernel failed for kernel 'doublify' (module vec) grid=(4,1,1) block=(256,1,1) "
        "shared=0"}},
      {"cuLaunchKernel",
       CUDA_ERROR_ILLEGAL_ADDRESS,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_KERNEL_FAULT,
       {0}},
      {"cuLaunchKernel",
       CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
       scenario_load_and_launch,
       NULL,
       CUBIND_ERROR_INVALID_CONFIG,
       {0}},
      /* the host-buffer path on a fresh thread (fresh scratch) */
      {"cuMemAlloc",
       CUDA_ERROR_OUT_OF_MEMORY,
       scenario_call,
       NULL,
       CUBIND_ERROR_OUT_OF_MEMORY,
       {"doublify_call", "device scratch"}},
      {"cuMemcpyHtoDAsync",
       CUDA_ERROR_INVALID_VALUE,
       scenario_call,
       NULL,
       CUBIND_ERROR_MEMCPY,
       {"doublify_call", "parameter 0 'a' (4000 bytes) to the device"}},
      {"cuMemcpyDtoHAsync",
       CUDA_ERROR_ILLEGAL_ADDRESS,
       scenario_call,
       NULL,
       CUBIND_ERROR_KERNEL_FAULT,
       {"doublify_call", "parameter 0 'a' (4000 bytes) back to the host"}},
      {"cuStreamSynchronize",
       CUDA_ERROR_ILLEGAL_ADDRESS,
       scenario_call,
       NULL,
       CUBIND_ERROR_KERNEL_FAULT,
       {"doublify_call", "kernel 'doublify'", "grid=(4,1,1)"}},
      {"cuLaunchKernel",
       CUDA_ERROR_INVALID_VALUE,
       scenario_call,
       NULL,
       CUBIND_ERROR_LAUNCH,
       {"doublify_call: cuLaunchKernel failed for kernel 'doublify'"}},
      {"cuMemFree",
       CUDA_ERROR_UNKNOWN,
       scenario_call_growing,
       NULL,
       CUBIND_ERROR_CUDA,
       {"doublify_call", "old scratch"}},
      /* the memory, stream, event and device API */
      {"cuMemAlloc",
       CUDA_ERROR_OUT_OF_MEMORY,
       scenario_memory,
       "malloc",
       CUBIND_ERROR_OUT_OF_MEMORY,
       {"cubind_malloc", "64 bytes"}},
      {"cuMemFree",
       CUDA_ERROR_INVALID_VALUE,
       scenario_memory,
       "free",
       CUBIND_ERROR_CUDA,
       {"cubind_free"}},
      {"cuMemAllocHost",
       CUDA_ERROR_OUT_OF_MEMORY,
       scenario_memory,
       "malloc_host",
       CUBIND_ERROR_OUT_OF_MEMORY,
       {"cubind_malloc_host"}},
      {"cuMemcpyHtoD",
       CUDA_ERROR_INVALID_VALUE,
       scenario_memory,
       "to_device",
       CUBIND_ERROR_MEMCPY,
       {"cubind_to_device", "64 bytes"}},
      {"cuMemcpyDtoH",
       CUDA_ERROR_ILLEGAL_ADDRESS,
       scenario_memory,
       "from_device",
       CUBIND_ERROR_KERNEL_FAULT,
       {"cubind_from_device"}},
      {"cuMemcpyHtoDAsync",
       CUDA_ERROR_INVALID_VALUE,
       scenario_memory,
       "to_device_async",
       CUBIND_ERROR_MEMCPY,
       {"cubind_to_device_async"}},
      {"cuMemcpyDtoHAsync",
       CUDA_ERROR_INVALID_VALUE,
       scenario_memory,
       "from_device_async",
       CUBIND_ERROR_MEMCPY,
       {"cubind_from_device_async"}},
      {"cuMemsetD8",
       CUDA_ERROR_INVALID_VALUE,
       scenario_memory,
       "memset",
       CUBIND_ERROR_CUDA,
       {"cubind_memset_d8"}},
      {"cuCtxSynchronize",
       CUDA_ERROR_LAUNCH_FAILED,
       scenario_memory,
       "synchronize",
       CUBIND_ERROR_KERNEL_FAULT,
       {"cubind_synchronize"}},
      {"cuStreamCreate",
       CUDA_ERROR_OUT_OF_MEMORY,
       scenario_memory,
       "stream_create",
       CUBIND_ERROR_OUT_OF_MEMORY,
       {"cubind_stream_create"}},
      {"cuStreamSynchronize",
       CUDA_ERROR_INVALID_HANDLE,
       scenario_memory,
       "stream_synchronize",
       CUBIND_ERROR_STREAM,
       {"cubind_stream_synchronize"}},
      {"cuEventCreate",
       CUDA_ERROR_INVALID_VALUE,
       scenario_memory,
       "timer_create",
       CUBIND_ERROR_STREAM,
       {"cubind_timer_create"}},
      {"cuEventRecord",
       CUDA_ERROR_INVALID_HANDLE,
       scenario_memory,
       "timer",
       CUBIND_ERROR_STREAM,
       {"cubind_timer_start"}},
      {"cuEventSynchronize",
       CUDA_ERROR_LAUNCH_FAILED,
       scenario_memory,
       "timer",
       CUBIND_ERROR_KERNEL_FAULT,
       {"cubind_timer_stop"}},
      {"cuEventElapsedTime",
       CUDA_ERROR_INVALID_HANDLE,
       scenario_memory,
       "timer",
       CUBIND_ERROR_STREAM,
       {"cubind_timer_stop"}},
      {"cuEventDestroy",
       CUDA_ERROR_INVALID_HANDLE,
       scenario_memory,
       "timer",
       CUBIND_ERROR_STREAM,
       {"cubind_timer_destroy"}},
      {"cuStreamDestroy",
       CUDA_ERROR_INVALID_HANDLE,
       scenario_memory,
       "stream",
       CUBIND_ERROR_STREAM,
       {"cubind_stream_destroy"}},
      {"cuMemFreeHost",
       CUDA_ERROR_INVALID_VALUE,
       scenario_memory,
       "free_host",
       CUBIND_ERROR_CUDA,
       {"cubind_free_host"}},
      {"cuCtxGetDevice",
       CUDA_ERROR_INVALID_CONTEXT,
       scenario_memory,
       "device",
       CUBIND_ERROR_CONTEXT,
       {"cubind_get_device"}},
      {"cuDeviceGet",
       CUDA_ERROR_UNKNOWN,
       scenario_memory,
       "device",
       CUBIND_ERROR_CONTEXT,
       {"cubind_get_device"}},
      {"cuDevicePrimaryCtxRetain",
       CUDA_ERROR_UNKNOWN,
       scenario_memory,
       "set_device_3",
       CUBIND_ERROR_CONTEXT,
       {"cubind_set_device", "device 3"}},
  };
  size_t i, j;
  (void)state;
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const injection *c = &cases[i];
    const char *cuda_name = NULL;
    long device = fake_cuda_live_device_allocations(), host = fake_cuda_live_host_allocations();
    long images = fake_cuda_live_images(), streams = fake_cuda_live_streams();
    long events = fake_cuda_live_events();
    char text[96];
    outcome o;
    unsigned long before;

    fake_cuda_reset();
    before = fake_cuda_calls(c->function);
    fake_cuda_fail(c->function, 1, c->result, 0);
    o = in_new_thread(c->scenario, c->arg);
    print_message("[ inject   ] %s -> %s: %s\n", c->function, cubind_status_name(o.status),
                  o.message);
    assert_true(fake_cuda_calls(c->function) > before);
    assert_int_equal(o.status, c->expected);
    snprintf(text, sizeof text, "%s", c->function);
    assert_contains(o.message, text);
    {
      /* the CUDA error's name, from the fake's table, as the runtime got it */
      static const struct {
        CUresult r;
        const char *name;
      } names[] = {{CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"},
                   {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"},
                   {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
                   {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE"},
                   {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
                   {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
                   {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"},
                   {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
                   {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED"},
                   {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"}};
      for (j = 0; j < sizeof names / sizeof names[0]; j++)
        if (names[j].r == c->result) cuda_name = names[j].name;
      assert_non_null(cuda_name);
      assert_contains(o.message, cuda_name);
    }
    if (c->scenario == scenario_load_and_launch)
      for (j = 0; j < 3; j++)
        assert_contains(o.message, LAUNCH_TEXT[j]);
    for (j = 0; j < 3 && c->expect[j]; j++)
      assert_contains(o.message, c->expect[j]);
    /* Nothing leaked: the scenario thread's scratch went with it, failed loads were undone. */
    /* a module whose load succeeded before the failing launch stays loaded, by design */
    assert_int_equal(fake_cuda_live_images(),
                     images + (c->scenario == scenario_load_and_launch &&
                               strcmp(c->function, "cuLaunchKernel") == 0));
    assert_int_equal(fake_cuda_live_host_allocations(), host);
    assert_int_equal(fake_cuda_live_streams(), streams);
    assert_int_equal(fake_cuda_live_events(), events);
    assert_int_equal(fake_cuda_live_device_allocations(), device);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(status_table, test_setup),
      cmocka_unit_test_setup(config_1d, test_setup),
      cmocka_unit_test_setup(devices, test_setup),
      cmocka_unit_test_setup(launch_round_trip, test_setup),
      cmocka_unit_test_setup(memory_api, test_setup),
      cmocka_unit_test_setup(module_variables, test_setup),
      cmocka_unit_test_setup(launch_attributes, test_setup),
      cmocka_unit_test_setup(call_round_trip_and_scratch_reuse, test_setup),
      cmocka_unit_test_setup(call_count_zero, test_setup),
      cmocka_unit_test_setup(call_size_overflow, test_setup),
      cmocka_unit_test_setup(staging_round_trips, test_setup),
      cmocka_unit_test_setup(staging_failures, test_setup),
      cmocka_unit_test_setup(launch_config_checks, test_setup),
      cmocka_unit_test_setup(load_once_per_device_and_preload, test_setup),
      cmocka_unit_test_setup(kernels_resolve_lazily, test_setup),
      cmocka_unit_test_setup(lazy_resolution_failures, test_setup),
      cmocka_unit_test_setup(abi_mismatch, test_setup),
      cmocka_unit_test_setup(no_binary_for_gpu, test_setup),
      cmocka_unit_test_setup(fatbin_parser_is_bounded, test_setup),
      cmocka_unit_test_setup(version_and_symbol_checks, test_setup),
      cmocka_unit_test_setup(application_contexts, test_setup),
      cmocka_unit_test_setup(error_hook_and_fault_attribution, test_setup),
      cmocka_unit_test_setup(every_driver_call_fails_cleanly, test_setup),
  };
  setenv("FAKE_CUDA_DEVICES", "4", 1);
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
