/*
 * test_threads.c: 32 threads (16 per device, on 2 devices) start together and make their first
 * launch at once, each of one kernel of one of two modules that share one image (vec's three
 * kernels, and "b"'s two: the separable-compilation case), so that kernels of both modules are
 * resolved concurrently with the image's load and with each other; then _call round trips.
 * Exactly one load per device for both modules and one resolution per kernel and device; every
 * launch succeeds. Then concurrent _calls of pageable buffers through the staging threads, and
 * of one shared buffer, registered in place.
 * Built with -fsanitize=thread (runtime and fake driver included).
 */
#include "test_support.h"

#define THREADS 32

static pthread_barrier_t start;

static const cubind_kernel_info b_kernels[] = {{"small", "small", doublify_params, 2},
                                               {"noop", "noop", NULL, 0}};
static cubind_module_state b_state;
static const cubind_module b_module = {CUBIND_ABI_VERSION, "b", cubind_fatbin_vec,
                                       &cubind_fatbin_vec_size, b_kernels, 2, &b_state, NULL, 0};

typedef struct worker {
  int device;
  const cubind_module *module; /* the module of the first launch */
  unsigned kernel;             /* ... and its kernel */
  cubind_status first, status;
  char message[1024];
} worker;

static void *worker_main(void *p) {
  worker *w = p;
  float data[256];
  cubind_config cfg = cubind_config_1d(256, 64);
  int i, round;
  w->status = cubind_set_device(w->device);
  pthread_barrier_wait(&start);
  if (w->status == CUBIND_SUCCESS) {
    float *a = NULL;
    int n = 0;
    void *args[2] = {&a, &n};
    w->first = w->status = cubind_module_launch(
        w->module, w->kernel, &cfg, w->module->kernels[w->kernel].num_params ? args : NULL);
  }
  for (round = 0; round < 20 && w->status == CUBIND_SUCCESS; round++) {
    for (i = 0; i < 256; i++)
      data[i] = (float)(i + w->device);
    w->status = doublify_call(&cfg, data, 256);
    for (i = 0; i < 256 && w->status == CUBIND_SUCCESS; i++)
      if (data[i] != 2.0f * (float)(i + w->device)) w->status = CUBIND_ERROR_CUDA;
  }
  snprintf(w->message, sizeof w->message, "%s", cubind_last_error());
  return NULL; /* scratch freed by the thread-exit destructor */
}

static void concurrent_first_launches(void **state) {
  pthread_t threads[THREADS];
  worker workers[THREADS];
  int i;
  (void)state;
  assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
  for (i = 0; i < THREADS; i++) {
    workers[i].device = i % 2;
    workers[i].module = (i / 2) % 2 ? &b_module : &vec_module;
    workers[i].kernel = (unsigned)(i / 4) % workers[i].module->num_kernels;
    workers[i].first = CUBIND_ERROR_CUDA;
    assert_int_equal(pthread_create(&threads[i], NULL, worker_main, &workers[i]), 0);
  }
  for (i = 0; i < THREADS; i++)
    pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&start);
  for (i = 0; i < THREADS; i++) {
    if (workers[i].status != CUBIND_SUCCESS) fail_msg("thread %d: %s", i, workers[i].message);
    assert_int_equal(workers[i].first, CUBIND_SUCCESS);
  }
  assert_int_equal(fake_cuda_loads(0), 1);
  assert_int_equal(fake_cuda_loads(1), 1);
  /* each kernel of each module once per device */
  assert_int_equal(fake_cuda_calls("cuModuleGetFunction"), (3 + 2) * 2);
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), THREADS * 21);
  assert_int_equal(fake_cuda_live_device_allocations(), 0);
}

/* One thread's staged round trips: a pageable buffer of STAGED_FLOATS through doublify_call. */
#define STAGED_THREADS 8
#define STAGED_FLOATS (300 * 1024 + 5)
static void *staged_main(void *p) {
  worker *w = p;
  float *data = malloc(STAGED_FLOATS * sizeof *data);
  cubind_config cfg = cubind_config_1d(STAGED_FLOATS, 256);
  size_t i;
  int round;
  w->status = data ? cubind_set_device(w->device) : CUBIND_ERROR_OUT_OF_MEMORY;
  pthread_barrier_wait(&start);
  for (round = 0; round < 10 && w->status == CUBIND_SUCCESS; round++) {
    for (i = 0; i < STAGED_FLOATS; i++) data[i] = (float)(i % 4093 + (size_t)w->device);
    w->status = doublify_call(&cfg, data, STAGED_FLOATS);
    for (i = 0; i < STAGED_FLOATS && w->status == CUBIND_SUCCESS; i++)
      if (data[i] != 2.0f * (float)(i % 4093 + (size_t)w->device)) w->status = CUBIND_ERROR_CUDA;
  }
  snprintf(w->message, sizeof w->message, "%s", cubind_last_error());
  free(data);
  return NULL;
}

/*
 * 8 threads on 2 devices make _call round trips of 1.2 MB pageable buffers at once
 * (CUBIND_STAGING_MIN=8K, CUBIND_STAGING_THREADS=4, CUBIND_STAGING_START=0, set in main): one call at a time holds the
 * staging threads (rebinding them to its device's context), the others copy plainly; every
 * result is right and nothing is left registered or allocated on the device.
 */
static void concurrent_staged_calls(void **state) {
  pthread_t threads[STAGED_THREADS];
  worker workers[STAGED_THREADS];
  int i;
  (void)state;
  assert_int_equal(pthread_barrier_init(&start, NULL, STAGED_THREADS), 0);
  for (i = 0; i < STAGED_THREADS; i++) {
    workers[i].device = i % 2;
    assert_int_equal(pthread_create(&threads[i], NULL, staged_main, &workers[i]), 0);
  }
  for (i = 0; i < STAGED_THREADS; i++)
    pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&start);
  for (i = 0; i < STAGED_THREADS; i++)
    if (workers[i].status != CUBIND_SUCCESS) fail_msg("thread %d: %s", i, workers[i].message);
  assert_true(fake_cuda_calls("cuMemHostAlloc") >= 1); /* some calls were staged */
  assert_int_equal(fake_cuda_live_registrations(), 0);
  assert_int_equal(fake_cuda_live_device_allocations(), 0);
}

/* One thread's calls that copy the shared buffer in (and nothing back): it stays as it was. */
#define SHARED_FLOATS (((size_t)8 << 20) / sizeof(float) + 3)
static float *shared_buffer;
static void *shared_main(void *p) {
  worker *w = p;
  float *dev = NULL;
  int n = (int)SHARED_FLOATS, round;
  void *args[2] = {&dev, &n};
  cubind_host_arg host = {0, CUBIND_DIRECTION_IN, NULL, SHARED_FLOATS, sizeof(float), "n"};
  cubind_config cfg = cubind_config_1d(SHARED_FLOATS, 256);
  size_t i;
  host.host = shared_buffer;
  w->status = cubind_set_device(w->device);
  pthread_barrier_wait(&start);
  for (round = 0; round < 6 && w->status == CUBIND_SUCCESS; round++)
    w->status = cubind_module_call(&vec_module, 0, &cfg, args, &host, 1);
  for (i = 0; i < SHARED_FLOATS && w->status == CUBIND_SUCCESS; i++)
    if (shared_buffer[i] != (float)(i % 4093)) w->status = CUBIND_ERROR_CUDA;
  snprintf(w->message, sizeof w->message, "%s", cubind_last_error());
  return NULL;
}

/*
 * 8 threads on 2 devices copy one 8 MiB pageable buffer in at once (the weights every device's
 * thread reads): one call holds the staging threads, the others register the buffer in place
 * and share that registration, undone by the last call that copies from it; nothing is left
 * registered.
 */
static void concurrent_shared_buffer(void **state) {
  pthread_t threads[STAGED_THREADS];
  worker workers[STAGED_THREADS];
  size_t i;
  (void)state;
  shared_buffer = malloc(SHARED_FLOATS * sizeof *shared_buffer);
  assert_non_null(shared_buffer);
  for (i = 0; i < SHARED_FLOATS; i++) shared_buffer[i] = (float)(i % 4093);
  fake_cuda_reset();
  assert_int_equal(pthread_barrier_init(&start, NULL, STAGED_THREADS), 0);
  for (i = 0; i < STAGED_THREADS; i++) {
    workers[i].device = (int)(i % 2);
    assert_int_equal(pthread_create(&threads[i], NULL, shared_main, &workers[i]), 0);
  }
  for (i = 0; i < STAGED_THREADS; i++)
    pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&start);
  free(shared_buffer);
  for (i = 0; i < STAGED_THREADS; i++)
    if (workers[i].status != CUBIND_SUCCESS) fail_msg("thread %zu: %s", i, workers[i].message);
  assert_true(fake_cuda_calls("cuMemHostRegister") >= 1);
  assert_int_equal(fake_cuda_calls("cuMemHostRegister"), fake_cuda_calls("cuMemHostUnregister"));
  assert_int_equal(fake_cuda_live_registrations(), 0);
  assert_int_equal(fake_cuda_live_device_allocations(), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(concurrent_first_launches),
                                     cmocka_unit_test(concurrent_staged_calls),
                                     cmocka_unit_test(concurrent_shared_buffer)};
  setenv("FAKE_CUDA_DEVICES", "2", 1);
  setenv("CUBIND_STAGING_MIN", "8K", 1);
  setenv("CUBIND_STAGING_THREADS", "4", 1);
  setenv("CUBIND_STAGING_START", "0", 1);
  use_fake_driver();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
