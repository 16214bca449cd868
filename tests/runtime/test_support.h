/*
 * test_support.h: what the runtime tests share (one test file per runtime source file, see
 * CMakeLists.txt): a synthetic fatbin, a module described exactly as cubind-gen describes one
 * (docs/architecture.md), its stubs, fresh modules (each with its own image, so that each loads
 * for the first time; or sharing another's image), a helper that runs a scenario on a fresh
 * thread and brings back its status and message, and the injection of one driver failure into
 * a scenario with every check of status, message and leaks.
 */
#ifndef CUBIND_TEST_SUPPORT_H
#define CUBIND_TEST_SUPPORT_H

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* cmocka.h needs the headers above */
#include <cmocka.h>

#include <cubind/cubind.h>
#include <cubind/generated.h>

#include "cubind_fatbin_format.h"
#include "fake_cuda.h"

#define TEST_UNUSED __attribute__((unused))

#define assert_contains(haystack, needle)                                                          \
  do {                                                                                             \
    if (!strstr((haystack), (needle)))                                                             \
      fail_msg("expected \"%s\" in the message: %s", (needle), (haystack));                        \
  } while (0)

/*
 * A fatbin as nvcc lays it out (cubind_fatbin_format.h), holding sm_80 and sm_90 cubins and
 * sm_90 PTX; the payloads are filler. Returns the size written (at most `size`).
 */
static TEST_UNUSED size_t build_fatbin(unsigned char *buf, size_t size) {
  static const struct {
    unsigned kind, arch;
  } entries[] = {{CUBIND_FATBIN_KIND_ELF, 80}, {CUBIND_FATBIN_KIND_ELF, 90},
                 {CUBIND_FATBIN_KIND_PTX, 90}};
  size_t pos = CUBIND_FATBIN_CONTAINER_SIZE, i;
  const size_t payload = 16;
  memset(buf, 0, size);
  for (i = 0; i < 3; i++) {
    cubind_fatbin_put_entry(buf + pos, CUBIND_FATBIN_ENTRY_SIZE, entries[i].kind, entries[i].arch,
                            payload, CUBIND_FATBIN_FLAG_64BIT | CUBIND_FATBIN_FLAG_LINUX);
    pos += CUBIND_FATBIN_ENTRY_SIZE + payload;
  }
  cubind_fatbin_put_container(buf, pos - CUBIND_FATBIN_CONTAINER_SIZE);
  return pos;
}

/* ---- what cubind-gen would generate for vec.cu ---------------------------------------------- */

#define TEST_IMAGE_BYTES 512

static unsigned char cubind_fatbin_vec[TEST_IMAGE_BYTES] __attribute__((aligned(16)));
static size_t cubind_fatbin_vec_size;

static const cubind_param_info doublify_params[] = {{"a", 0, 8}, {"n", 8, 4}};
static const cubind_kernel_info vec_kernels[] = {
    {"doublify", "doublify", doublify_params, 2},
    {"noop", "noop", NULL, 0},
    {"small", "small", doublify_params, 2},
};
static cubind_module_state vec_state;
static const cubind_module vec_module = {CUBIND_ABI_VERSION, "vec", cubind_fatbin_vec,
                                         &cubind_fatbin_vec_size, vec_kernels, 3, &vec_state,
                                         NULL, 0};

static TEST_UNUSED cubind_status doublify_launch(const cubind_config *cfg, float *a, int n) {
  void *args[2] = {&a, &n};
  return cubind_module_launch(&vec_module, 0, cfg, args);
}

static TEST_UNUSED cubind_status doublify_call(const cubind_config *cfg, float *a, int n) {
  void *args[2] = {&a, &n};
  cubind_host_arg host[1] = {
      {0, CUBIND_DIRECTION_INOUT, (void *)a, cubind_count_result(cubind_count_int(n)), sizeof(float),
       "n"}};
  return cubind_module_call(&vec_module, 0, cfg, args, host, 1);
}

static TEST_UNUSED cubind_status noop_launch(const cubind_config *cfg) {
  return cubind_module_launch(&vec_module, 1, cfg, NULL);
}

/* ---- fresh modules ----------------------------------------------------------------------------- */

/* A module of its own: descriptor, state and (unless shared) image. */
typedef struct test_module {
  cubind_module module;
  cubind_module_state state;
  unsigned char image[TEST_IMAGE_BYTES] __attribute__((aligned(16)));
  size_t image_size;
} test_module;

#define TEST_MODULES 48
static test_module module_pool[TEST_MODULES];
static unsigned modules_used;

/*
 * fresh_module: a module named "vec" with `kernels` and a copy of vec's image at an address of
 * its own, so that it loads for the first time on every device.
 */
static TEST_UNUSED cubind_module *fresh_module(const cubind_kernel_info *kernels, unsigned n) {
  test_module *t;
  assert_true(modules_used < TEST_MODULES);
  t = &module_pool[modules_used++];
  memcpy(t->image, cubind_fatbin_vec, sizeof t->image);
  t->image_size = cubind_fatbin_vec_size;
  t->module = vec_module;
  t->module.image = t->image;
  t->module.image_size = &t->image_size;
  t->module.kernels = kernels;
  t->module.num_kernels = n;
  t->module.state = &t->state;
  return &t->module;
}

/*
 * module_sharing: a module named `name` with `kernels` and `globals` that points at the same
 * image as `with` (the separable-compilation case: two .cu files, one fatbin).
 */
static TEST_UNUSED cubind_module *module_sharing(const cubind_module *with, const char *name,
                                                 const cubind_kernel_info *kernels, unsigned n,
                                                 const cubind_global_info *globals,
                                                 unsigned num_globals) {
  cubind_module *m = fresh_module(kernels, n);
  m->name = name;
  m->image = with->image;
  m->image_size = with->image_size;
  m->globals = globals;
  m->num_globals = num_globals;
  return m;
}

/* Launches kernel `index` of `m` (doublify-shaped arguments for kernels that take them). */
static TEST_UNUSED cubind_status launch_kernel(const cubind_module *m, unsigned index) {
  float *a = NULL;
  int n = 0;
  void *args[2] = {&a, &n};
  cubind_config cfg = {{4, 1, 1}, {64, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  return cubind_module_launch(m, index, &cfg, m->kernels[index].num_params ? args : NULL);
}

/* Launches kernel 0 of `arg` (a module) with grid 4, block 256. */
static TEST_UNUSED cubind_status launch_first_kernel(void *arg) {
  const cubind_module *m = arg;
  float *a = NULL;
  int n = 0;
  void *args[2] = {&a, &n};
  cubind_config cfg = {{4, 1, 1}, {256, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  return cubind_module_launch(m, 0, &cfg, m->kernels[0].num_params ? args : NULL);
}

/* ---- set-up ------------------------------------------------------------------------------------- */

/* Sets the fake up as the driver: call first in main(). */
static TEST_UNUSED void use_fake_driver(void) {
  cubind_fatbin_vec_size = build_fatbin(cubind_fatbin_vec, sizeof cubind_fatbin_vec);
  if (cubind_set_driver_library(FAKE_CUDA_PATH) != CUBIND_SUCCESS) {
    fprintf(stderr, "cubind_set_driver_library: %s\n", cubind_last_error());
    exit(1);
  }
}

/* cmocka group set-up: the fake as the driver, initialised. */
static TEST_UNUSED int group_setup(void **state) {
  (void)state;
  use_fake_driver();
  return cubind_init() == CUBIND_SUCCESS ? 0 : -1;
}

/* cmocka group tear-down: the main thread's scratch goes (valgrind counts it otherwise). */
static TEST_UNUSED int group_teardown(void **state) {
  (void)state;
  return cubind_release_scratch() == CUBIND_SUCCESS ? 0 : -1;
}

/* cmocka per-test set-up: no failure armed, counters at 0, an sm_80 device. */
static TEST_UNUSED int test_setup(void **state) {
  (void)state;
  fake_cuda_reset();
  fake_cuda_set_compute_capability(8, 0);
  return 0;
}

/* Runs a group of tests against the fake driver with `devices` devices. */
#define RUN_RUNTIME_TESTS(tests, devices)                                                          \
  (setenv("FAKE_CUDA_DEVICES", #devices, 1),                                                       \
   cmocka_run_group_tests(tests, group_setup, group_teardown))

/* ---- running a scenario on a thread of its own --------------------------------------------- */

typedef struct outcome {
  cubind_status status;
  char message[1024];
} outcome;

typedef struct thread_job {
  cubind_status (*fn)(void *arg);
  void *arg;
  outcome result;
} thread_job;

static TEST_UNUSED void *thread_job_main(void *p) {
  thread_job *job = p;
  job->result.status = job->fn(job->arg);
  snprintf(job->result.message, sizeof job->result.message, "%s", cubind_last_error());
  return NULL; /* the thread's scratch goes with it (pthread key destructor) */
}

/* Runs fn(arg) on a new thread (a thread with no context and no scratch yet). */
static TEST_UNUSED outcome in_new_thread(cubind_status (*fn)(void *), void *arg) {
  thread_job job;
  pthread_t t;
  job.fn = fn;
  job.arg = arg;
  job.result.status = CUBIND_ERROR_CUDA;
  strcpy(job.result.message, "the thread did not start");
  if (pthread_create(&t, NULL, thread_job_main, &job) == 0) pthread_join(t, NULL);
  return job.result;
}

/* ---- one driver failure injected into a scenario ------------------------------------------- */

typedef struct injection {
  const char *function; /* the driver call made to fail (its first call in the scenario) */
  CUresult result;      /* ... with this result */
  cubind_status (*scenario)(void *);
  void *arg;
  cubind_status expected;
  const char *expect[4]; /* text the message must hold (besides the call and the CUDA error) */
  int images_kept;       /* images the scenario may leave loaded (loaded before the failure) */
} injection;

/* The launch text of scenarios that launch with grid 4, block 256 (launch_first_kernel). */
#define LAUNCH_TEXT "doublify_launch", "grid=(4,1,1) block=(256,1,1)", "module vec"

static TEST_UNUSED const char *cuda_error_name(CUresult r) {
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
               {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"},
               {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU"}};
  size_t i;
  for (i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].r == r) return names[i].name;
  return NULL;
}

/*
 * run_injections: for each case, the first call of `function` in the scenario (run on a fresh
 * thread, so with no context and no scratch of its own yet) fails with `result`: the scenario
 * must return `expected`, its message must name the call, the CUDA error and each `expect` text,
 * and nothing may leak (device and host allocations, streams, events; images beyond
 * images_kept).
 */
static TEST_UNUSED void run_injections(const injection *cases, size_t n) {
  size_t i, j;
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  for (i = 0; i < n; i++) {
    const injection *c = &cases[i];
    const char *cuda_name = cuda_error_name(c->result);
    long device = fake_cuda_live_device_allocations(), host = fake_cuda_live_host_allocations();
    long images = fake_cuda_live_images(), streams = fake_cuda_live_streams();
    long events = fake_cuda_live_events();
    unsigned long before;
    outcome o;

    fake_cuda_reset();
    before = fake_cuda_calls(c->function);
    fake_cuda_fail(c->function, 1, c->result, 0);
    o = in_new_thread(c->scenario, c->arg);
    print_message("[ inject   ] %s -> %s: %s\n", c->function, cubind_status_name(o.status),
                  o.message);
    assert_true(fake_cuda_calls(c->function) > before);
    assert_int_equal(o.status, c->expected);
    assert_contains(o.message, c->function);
    assert_non_null(cuda_name);
    assert_contains(o.message, cuda_name);
    for (j = 0; j < 4 && c->expect[j]; j++)
      assert_contains(o.message, c->expect[j]);
    /* Nothing leaked: the scenario thread's scratch went with it, failed loads were undone. */
    assert_int_equal(fake_cuda_live_images(), images + c->images_kept);
    assert_int_equal(fake_cuda_live_host_allocations(), host);
    assert_int_equal(fake_cuda_live_streams(), streams);
    assert_int_equal(fake_cuda_live_events(), events);
    assert_int_equal(fake_cuda_live_device_allocations(), device);
  }
}

/* The scenario of a first launch of a fresh module (image, kernel, launch) on a fresh thread. */
static TEST_UNUSED cubind_status scenario_load_and_launch(void *arg) {
  (void)arg;
  return launch_first_kernel(fresh_module(vec_kernels, 3));
}

#endif /* CUBIND_TEST_SUPPORT_H */
