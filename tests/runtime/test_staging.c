/*
 * test_staging.c (runtime/src/staging.c, hostcopy.c): large pageable host buffers of
 * `<kernel>_call` through the staging threads, or registered for the call when there are none
 * (and unregistered on every path), small and page-locked ones copied plainly; a failure at
 * every step of both; the policy's environment variables (CUBIND_PAGEABLE_STAGING,
 * CUBIND_STAGING_MIN: read as sizes with units, CUBIND_STAGING_THREADS: a count, or rejected);
 * a fork's child after the threads started exits and calls without them.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

/* Defined in the runtime (hidden in the shared library; these tests link the static one). */
void cubind__set_staging(int on, size_t min_bytes, unsigned threads, /* staging.h */
                         size_t start_bytes);
int cubind__hostcopy_acquire(CUcontext ctx, unsigned threads);        /* hostcopy.h */
void cubind__hostcopy_release(void);
void cubind__staging_classify(const cubind_host_arg *host_args, unsigned n, size_t elements,
                              unsigned char *kind, unsigned short *hold);
int cubind__staging_register(unsigned short hold);
CUresult cubind__staging_release(unsigned short hold);
enum { COPY_STAGED = 2 }; /* staging.h: CUBIND__COPY_STAGED */

/* The calling thread's current context. */
static CUcontext current_context(void) {
  CUresult (*get)(CUcontext *) = NULL;
  CUcontext ctx = NULL;
  if (cuGetProcAddress_v2("cuCtxGetCurrent", (void **)&get, 4000, 0, NULL) == CUDA_SUCCESS && get)
    (void)get(&ctx);
  return ctx;
}

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
  host[0].count_text = "n";
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

/* Calls doublify_call on `job` in a new thread; fails the test with its message on failure. */
static void round_trip_ok(const char *what, staged_job *job) {
  outcome o = in_new_thread(staged_scenario, job);
  if (o.status != CUBIND_SUCCESS) fail_msg("%s, %zu floats: %s", what, job->n, o.message);
}

/*
 * Pageable buffers from the threshold up go through the staging threads (4 here, the caller
 * included): chunks of at most a slot, several chunks for the larger sizes, nothing registered,
 * the threads' slots allocated once and kept between calls, freed by cubind_release_scratch.
 * Every element is checked, so a chunk copied to or from the wrong place shows. Smaller buffers,
 * page-locked ones and count 0 take the plain path, as does everything with staging off
 * (CUBIND_PAGEABLE_STAGING=0).
 */
static void staged_round_trips(void **state) {
  static const size_t sizes[] = {0, 1, 2047, 2048, 2049, 10 * 1024 + 3, 300 * 1024 + 5,
                                 700 * 1024 + 1};
  static const unsigned directions[] = {CUBIND_DIRECTION_INOUT, CUBIND_DIRECTION_IN};
  long host = fake_cuda_live_host_allocations();
  size_t i, d;
  (void)state;
  cubind__set_staging(1, STAGING_MIN, 4, 0);
  for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (d = 0; d < sizeof directions / sizeof directions[0]; d++) {
      size_t bytes = sizes[i] * sizeof(float);
      unsigned direction = directions[d];
      staged_job job = {sizes[i], 0, direction};
      unsigned long in_copies, out_copies;
      fake_cuda_reset();
      round_trip_ok("staged", &job);
      in_copies = fake_cuda_calls("cuMemcpyHtoDAsync");
      out_copies = fake_cuda_calls("cuMemcpyDtoHAsync");
      assert_int_equal(fake_cuda_calls("cuMemHostRegister"), 0);
      assert_int_equal(fake_cuda_calls("cuMemAllocHost"), 0);
      assert_true(fake_cuda_calls("cuMemHostAlloc") <= 1); /* the slots, once */
      if (bytes < STAGING_MIN) {
        assert_int_equal(in_copies, bytes ? 1 : 0);
        assert_int_equal(out_copies, bytes && (direction & CUBIND_DIRECTION_OUT) ? 1 : 0);
        continue;
      }
      /* chunks of at least 128 KiB and at most 1 MiB, one for every thread where there are */
      assert_true(in_copies >= (bytes + (1u << 20) - 1) / (1u << 20));
      assert_true(in_copies <= (bytes + (128u << 10) - 1) / (128u << 10));
      assert_int_equal(out_copies, direction & CUBIND_DIRECTION_OUT ? in_copies : 0);
      if (bytes > ((size_t)256 << 10)) assert_true(in_copies >= 2);
    }
  assert_int_equal(fake_cuda_live_host_allocations(), host + 1); /* the slots, kept */
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_host_allocations(), host);
  /* Page-locked: seen as such, one direct copy each way, whatever the size. */
  {
    staged_job job = {10 * 1024, 1, CUBIND_DIRECTION_INOUT};
    fake_cuda_reset();
    round_trip_ok("pinned", &job);
    assert_int_equal(fake_cuda_calls("cuPointerGetAttributes"), 1);
    assert_int_equal(fake_cuda_calls("cuMemHostRegister"), 0);
    assert_int_equal(fake_cuda_calls("cuMemHostAlloc"), 0);
    assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync"), 1);
    assert_int_equal(fake_cuda_calls("cuMemcpyDtoHAsync"), 1);
    assert_int_equal(fake_cuda_calls("cuMemAllocHost"), 1); /* the test's own buffer */
  }
  /* Off (CUBIND_PAGEABLE_STAGING=0): the plain path, the pointer not even looked at. */
  {
    staged_job job = {10 * 1024, 0, CUBIND_DIRECTION_INOUT};
    cubind__set_staging(0, STAGING_MIN, 4, 0);
    fake_cuda_reset();
    round_trip_ok("off", &job);
    assert_int_equal(fake_cuda_calls("cuPointerGetAttributes"), 0);
    assert_int_equal(fake_cuda_calls("cuMemHostAlloc"), 0);
    assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync"), 1);
    assert_int_equal(fake_cuda_calls("cuMemcpyDtoHAsync"), 1);
  }
  cubind__set_staging(1, (size_t)1 << 20, 2, (size_t)256 << 20); /* the defaults */
}

/*
 * Without the staging threads (none configured, or another call holding them), a pageable
 * buffer of 8 MiB and up is registered for the call, copied directly and unregistered; a smaller
 * one is copied plainly. The fake defers async copies until a synchronisation says they are
 * done, so a result read too early shows as wrong data.
 */
static void registered_fallback(void **state) {
  staged_job large = {((size_t)8 << 20) / sizeof(float) + 3, 0, CUBIND_DIRECTION_INOUT};
  staged_job small = {300 * 1024 + 5, 0, CUBIND_DIRECTION_INOUT};
  (void)state;
  cubind__set_staging(1, STAGING_MIN, 0, 0);
  fake_cuda_defer_async_copies(1);
  fake_cuda_reset();
  round_trip_ok("no threads", &large);
  assert_int_equal(fake_cuda_calls("cuMemHostRegister"), 1);
  assert_int_equal(fake_cuda_calls("cuMemHostUnregister"), 1);
  assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync"), 1);
  assert_int_equal(fake_cuda_calls("cuMemHostAlloc"), 0);
  fake_cuda_reset();
  round_trip_ok("no threads, small", &small);
  assert_int_equal(fake_cuda_calls("cuMemHostRegister"), 0);
  assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync"), 1);
  fake_cuda_defer_async_copies(0);
  /* The threads held by another call: this one registers instead of waiting. */
  cubind__set_staging(1, STAGING_MIN, 4, 0);
  fake_cuda_make_current(0);
  assert_int_equal(cubind__hostcopy_acquire(current_context(), 4), 1);
  fake_cuda_reset();
  round_trip_ok("threads busy", &large);
  assert_int_equal(fake_cuda_calls("cuMemHostRegister"), 1);
  assert_int_equal(fake_cuda_calls("cuMemHostUnregister"), 1);
  cubind__hostcopy_release();
  fake_cuda_reset();
  round_trip_ok("threads free again", &large);
  assert_int_equal(fake_cuda_calls("cuMemHostRegister"), 0);
  assert_true(fake_cuda_calls("cuMemcpyHtoDAsync") >= 8);
  assert_int_equal(fake_cuda_live_registrations(), 0);
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  cubind__set_staging(1, (size_t)1 << 20, 2, (size_t)256 << 20); /* the defaults */
}

/* Another thread's call that registered a buffer in place, as it holds and ends it. */
typedef struct other_call {
  cubind_host_arg buffer;
  unsigned short hold;
  int ended;
  CUresult released;
} other_call;

static void other_call_ends(void *arg) {
  other_call *other = arg;
  other->ended = 1;
  other->released = cubind__staging_release(other->hold);
}

typedef struct shared_job {
  size_t n;           /* floats in the other call's buffer */
  size_t offset, count; /* this call's part of it (may run past its end) */
} shared_job;

/*
 * While another call (on another thread) has a buffer registered in place, this call copies part
 * of it; the other call ends between this call's copy in and its launch. Its copies are queued
 * (the fake's deferred mode), as a GPU's DMA runs after the driver returns: the registration
 * must outlive them, and be undone when this call ends.
 */
static cubind_status shared_scenario(void *arg) {
  const shared_job *job = arg;
  size_t total = job->offset + job->count > job->n ? job->offset + job->count : job->n;
  float *a = malloc(total * sizeof(float)), *dev = NULL;
  other_call other;
  unsigned char kind;
  int n = (int)job->count;
  void *args[2] = {&dev, &n};
  cubind_host_arg host[1];
  cubind_config cfg = cubind_config_1d(job->count, 256);
  cubind_status status;
  size_t i;
  if (!a) return CUBIND_ERROR_OUT_OF_MEMORY;
  for (i = 0; i < total; i++)
    a[i] = (float)(i % 1000);
  /* a call of this thread first: its context current, as the other call's would be */
  host[0].param_index = 0;
  host[0].direction = CUBIND_DIRECTION_INOUT;
  host[0].host = a;
  host[0].count = 16;
  host[0].elem_size = sizeof(float);
  host[0].count_text = "n";
  n = 16;
  if ((status = cubind_module_call(&vec_module, 0, &cfg, args, host, 1)) != CUBIND_SUCCESS) {
    free(a);
    return status;
  }
  for (i = 0; i < 16; i++)
    a[i] = (float)(i % 1000);
  n = (int)job->count;
  memset(&other, 0, sizeof other);
  other.buffer.direction = CUBIND_DIRECTION_IN;
  other.buffer.host = a;
  other.buffer.count = job->n;
  other.buffer.elem_size = sizeof(float);
  cubind__staging_classify(&other.buffer, 1, 0, &kind, &other.hold);
  if (kind != COPY_STAGED || !other.hold || !cubind__staging_register(other.hold)) {
    fprintf(stderr, "the other call did not register its buffer (kind %u)\n", kind);
    free(a);
    return CUBIND_ERROR_CUDA;
  }
  fake_cuda_on_call("cuLaunchKernel", other_call_ends, &other);
  host[0].param_index = 0;
  host[0].direction = CUBIND_DIRECTION_INOUT;
  host[0].host = a + job->offset;
  host[0].count = job->count;
  host[0].elem_size = sizeof(float);
  host[0].count_text = "n";
  status = cubind_module_call(&vec_module, 0, &cfg, args, host, 1);
  if (!other.ended) {
    fake_cuda_on_call("", NULL, NULL);
    other_call_ends(&other);
    if (status == CUBIND_SUCCESS) status = CUBIND_ERROR_CUDA; /* not in the middle */
  }
  if (status == CUBIND_SUCCESS && other.released != CUDA_SUCCESS) status = CUBIND_ERROR_CUDA;
  for (i = 0; status == CUBIND_SUCCESS && i < job->count; i++)
    if (a[job->offset + i] != (float)((job->offset + i) % 1000) * 2.0f) {
      fprintf(stderr, "element %zu: %g\n", i, (double)a[job->offset + i]);
      status = CUBIND_ERROR_CUDA;
    }
  free(a);
  return status;
}

/*
 * Calls on several threads may copy one buffer (the weights each device's thread reads): a
 * registration in place is undone only when no running call copies from it, by the last one.
 * Inside the other call's buffer, this call shares its registration; across its end, this call
 * copies plainly and keeps the other's registration until it ends.
 */
static void shared_registration(void **state) {
  static const struct {
    const char *what;
    shared_job job;
  } cases[] = {
      {"the same buffer", {((size_t)8 << 20) / sizeof(float) + 3, 0, ((size_t)8 << 20) / sizeof(float) + 3}},
      {"inside it", {((size_t)8 << 20) / sizeof(float) + 3, 1000, 5000}},
      {"across its end", {((size_t)8 << 20) / sizeof(float) + 3, ((size_t)8 << 20) / sizeof(float), 9000}},
  };
  size_t c;
  (void)state;
  cubind__set_staging(1, STAGING_MIN, 0, 0);
  for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    outcome o;
    fake_cuda_defer_async_copies(1);
    fake_cuda_reset();
    o = in_new_thread(shared_scenario, (void *)&cases[c].job);
    fake_cuda_defer_async_copies(0);
    if (o.status != CUBIND_SUCCESS) fail_msg("%s: %s", cases[c].what, o.message);
    assert_int_equal(fake_cuda_unregistered_under_copies(), 0);
    assert_int_equal(fake_cuda_calls("cuMemHostRegister"), 1); /* the other call's only */
    assert_int_equal(fake_cuda_calls("cuMemHostUnregister"), 1);
    assert_int_equal(fake_cuda_live_registrations(), 0);
  }
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  cubind__set_staging(1, (size_t)1 << 20, 2, (size_t)256 << 20); /* the defaults */
}

/*
 * A failure at every step of a staged call: the status and a message naming the parameter, the
 * direction and the step; nothing leaked, the threads usable by the next call. The threads'
 * own set-up failing (slots, streams, events) is no failure: the call copies another way.
 */
static void staged_failures(void **state) {
  static const struct {
    const char *function;
    unsigned nth;
    cubind_status expected;
    const char *expect;
  } cases[] = {
      {"cuMemHostAlloc", 1, CUBIND_SUCCESS, NULL}, /* the slots: copied another way */
      {"cuStreamCreate", 1, CUBIND_SUCCESS, NULL},
      {"cuEventCreate", 2, CUBIND_SUCCESS, NULL},
      {"cuPointerGetAttributes", 1, CUBIND_SUCCESS, NULL}, /* unknown memory: plainly */
      {"cuMemcpyHtoDAsync", 1, CUBIND_ERROR_MEMCPY,
       "copying parameter 0 'a' (1228820 bytes) to the device through the staging threads: "
       "cuMemcpyHtoDAsync from a staging slot failed"},
      {"cuMemcpyHtoDAsync", 3, CUBIND_ERROR_MEMCPY, "to the device through the staging threads"},
      {"cuEventSynchronize", 1, CUBIND_ERROR_MEMCPY,
       "to the device through the staging threads: cuEventSynchronize of a staging slot failed"},
      {"cuLaunchKernel", 1, CUBIND_ERROR_LAUNCH, "cuLaunchKernel failed"},
      {"cuStreamWaitEvent", 1, CUBIND_ERROR_MEMCPY,
       "back to the host through the staging threads: cuStreamWaitEvent on a staging stream "
       "failed"},
      {"cuMemcpyDtoHAsync", 2, CUBIND_ERROR_MEMCPY,
       "back to the host through the staging threads: cuMemcpyDtoHAsync into a staging slot "
       "failed"},
  };
  staged_job job = {300 * 1024 + 5, 0, CUBIND_DIRECTION_INOUT};
  long host = fake_cuda_live_host_allocations(), device = fake_cuda_live_device_allocations();
  long streams = fake_cuda_live_streams(), events = fake_cuda_live_events();
  size_t i;
  (void)state;
  cubind__set_staging(1, STAGING_MIN, 4, 0);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    outcome o;
    assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS); /* the threads start anew */
    fake_cuda_reset();
    fake_cuda_fail(cases[i].function, cases[i].nth, CUDA_ERROR_UNKNOWN, 0);
    o = in_new_thread(staged_scenario, &job);
    print_message("[ staging  ] %s #%u -> %s: %s\n", cases[i].function, cases[i].nth,
                  cubind_status_name(o.status), o.message);
    assert_int_equal(o.status, cases[i].expected);
    if (cases[i].expect) {
      assert_contains(o.message, "doublify_call");
      assert_contains(o.message, "kernel 'doublify' (module vec)");
      assert_contains(o.message, cases[i].expect);
    }
    assert_int_equal(fake_cuda_live_registrations(), 0);
    /* and the next call through the same threads works */
    fake_cuda_reset();
    round_trip_ok("after a failure", &job);
  }
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  assert_int_equal(fake_cuda_live_host_allocations(), host);
  assert_int_equal(fake_cuda_live_device_allocations(), device);
  assert_int_equal(fake_cuda_live_streams(), streams);
  assert_int_equal(fake_cuda_live_events(), events);
  cubind__set_staging(1, (size_t)1 << 20, 2, (size_t)256 << 20); /* the defaults */
}

/*
 * A failure at every step of a registered call (no staging threads): the status and message of
 * the failing call, the registration undone after the synchronisation on every path, nothing
 * leaked. A buffer that cannot be registered, or whose memory type cannot be read, is copied
 * plainly.
 */
static void registered_failures(void **state) {
  static const struct {
    const char *function;
    CUresult result;
    cubind_status expected;
    const char *expect;
  } cases[] = {
      {"cuPointerGetAttributes", CUDA_ERROR_INVALID_VALUE, CUBIND_SUCCESS, NULL}, /* plain */
      {"cuMemHostRegister", CUDA_ERROR_OUT_OF_MEMORY, CUBIND_SUCCESS, NULL},      /* plain */
      {"cuMemcpyHtoDAsync", CUDA_ERROR_INVALID_VALUE, CUBIND_ERROR_MEMCPY,
       "copying parameter 0 'a' (8388620 bytes) to the device: cuMemcpyHtoDAsync failed"},
      {"cuLaunchKernel", CUDA_ERROR_INVALID_VALUE, CUBIND_ERROR_LAUNCH, "cuLaunchKernel failed"},
      {"cuMemcpyDtoHAsync", CUDA_ERROR_INVALID_VALUE, CUBIND_ERROR_MEMCPY,
       "copying parameter 0 'a' (8388620 bytes) back to the host: cuMemcpyDtoHAsync failed"},
      {"cuStreamSynchronize", CUDA_ERROR_ILLEGAL_ADDRESS, CUBIND_ERROR_KERNEL_FAULT,
       "cuStreamSynchronize failed"},
      {"cuMemHostUnregister", CUDA_ERROR_UNKNOWN, CUBIND_ERROR_CUDA,
       "cuMemHostUnregister of parameter 0 'a' failed: CUDA_ERROR_UNKNOWN"},
  };
  staged_job job = {((size_t)8 << 20) / sizeof(float) + 3, 0, CUBIND_DIRECTION_INOUT};
  size_t i;
  (void)state;
  cubind__set_staging(1, STAGING_MIN, 0, 0);
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
  cubind__set_staging(1, (size_t)1 << 20, 2, (size_t)256 << 20); /* the defaults */
}

/* ---- the policy from the environment (read once per process: a forked child per case) ---- */

/* In the child: print what went wrong and exit 1. */
#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond,     \
              cubind_last_error());                                                                \
      fflush(stderr);                                                                              \
      _exit(1);                                                                                    \
    }                                                                                              \
  } while (0)

/* One _call of 10 KiB + 12 bytes of pageable floats in the child; its status. */
static cubind_status child_call(void) {
  staged_job job = {10 * 1024 + 3, 0, CUBIND_DIRECTION_INOUT};
  return staged_scenario(&job);
}

/*
 * Runs a _call of 40 KiB + 12 bytes each way in a child with CUBIND_PAGEABLE_STAGING=on,
 * CUBIND_STAGING_MIN=min, CUBIND_STAGING_THREADS=threads and CUBIND_STAGING_START=start (NULL:
 * unset) and checks its status,
 * whether the buffer went through the staging threads (their slots allocated), and the message.
 */
static void policy_case(const char *on, const char *min, const char *threads, const char *start,
                        cubind_status expected, int staged, const char *expect) {
  int status = 0;
  pid_t pid;
  fflush(NULL);
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    cubind_status s;
    if (on) setenv("CUBIND_PAGEABLE_STAGING", on, 1);
    if (min) setenv("CUBIND_STAGING_MIN", min, 1);
    if (threads) setenv("CUBIND_STAGING_THREADS", threads, 1);
    if (start) setenv("CUBIND_STAGING_START", start, 1);
    use_fake_driver();
    s = child_call();
    CHECK(s == expected);
    /* staged -1: as by default, staged where more than one processor is online */
    CHECK(fake_cuda_calls("cuMemHostAlloc") ==
          (unsigned long)(staged >= 0 ? staged : sysconf(_SC_NPROCESSORS_ONLN) > 1));
    CHECK(fake_cuda_calls("cuMemHostRegister") == 0); /* 40 KiB: never worth registering */
    CHECK(!expect || strstr(cubind_last_error(), expect));
    if (expected != CUBIND_SUCCESS) { /* refused every time, not only once */
      CHECK(child_call() == expected);
      CHECK(fake_cuda_calls("cuLaunchKernel") == 0);
    }
    CHECK(cubind_release_scratch() == CUBIND_SUCCESS);
    fflush(NULL);
    _exit(0);
  }
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  if (WEXITSTATUS(status) != 0)
    fail_msg("CUBIND_PAGEABLE_STAGING=%s CUBIND_STAGING_MIN=%s CUBIND_STAGING_THREADS=%s "
             "CUBIND_STAGING_START=%s",
             on ? on : "(unset)", min ? min : "(unset)", threads ? threads : "(unset)",
             start ? start : "(unset)");
}

static void policy_from_environment(void **state) {
  (void)state;
  policy_case(NULL, NULL, NULL, "0", CUBIND_SUCCESS, 0, NULL); /* 40 KiB < the default 1 MiB */
  policy_case(NULL, "4K", "2", "0", CUBIND_SUCCESS, 1, NULL);  /* 40 KiB >= 4 KiB: staged */
  policy_case(NULL, "4096", "3", "0", CUBIND_SUCCESS, 1, NULL);
  policy_case(NULL, "41KiB", "2", "0", CUBIND_SUCCESS, 0, NULL); /* 40 KiB + 12 bytes < 41 KiB */
  policy_case(NULL, "1G", "2", "0", CUBIND_SUCCESS, 0, NULL);  /* 1 GiB, never 1 byte */
  policy_case(NULL, "", "2", "0", CUBIND_SUCCESS, 0, NULL);    /* empty: the default */
  policy_case(NULL, "4K", "1", "0", CUBIND_SUCCESS, 0, NULL);  /* the caller alone: no threads */
  policy_case(NULL, "4K", "0", "0", CUBIND_SUCCESS, 0, NULL);
  policy_case(NULL, "4K", "", "0", CUBIND_SUCCESS, -1, NULL);  /* empty: the default, as unset */
  /* the threads start once the traffic reaches CUBIND_STAGING_START: 80 KiB + 24 bytes here */
  policy_case(NULL, "4K", "2", NULL, CUBIND_SUCCESS, 0, NULL);  /* default: 256 MiB */
  policy_case(NULL, "4K", "2", "80K", CUBIND_SUCCESS, 1, NULL);
  policy_case(NULL, "4K", "2", "81K", CUBIND_SUCCESS, 0, NULL);
  policy_case("off", "4K", "2", "0", CUBIND_SUCCESS, 0, NULL);
  policy_case("0", "4K", "2", "0", CUBIND_SUCCESS, 0, NULL);
  policy_case("1", "4K", "2", "0", CUBIND_SUCCESS, 1, NULL);
  policy_case(NULL, "-5", NULL, NULL, CUBIND_ERROR_INVALID_VALUE, 0,
              "doublify_call: kernel 'doublify' (module vec) grid=(41,1,1) block=(256,1,1) "
              "shared=0: CUBIND_STAGING_MIN='-5' is not a size (a negative size)");
  policy_case(NULL, "1Q", NULL, NULL, CUBIND_ERROR_INVALID_VALUE, 0,
              "CUBIND_STAGING_MIN='1Q' is not a size (an unknown unit): write a number of bytes");
  policy_case("maybe", NULL, NULL, NULL, CUBIND_ERROR_INVALID_VALUE, 0,
              "CUBIND_PAGEABLE_STAGING='maybe' is neither on nor off");
  policy_case("maybe", "2X", NULL, NULL, CUBIND_ERROR_INVALID_VALUE, 0,
              "is neither on nor off: write 1 or 0 (on/off, yes/no, true/false); "
              "CUBIND_STAGING_MIN='2X'");
  policy_case(NULL, NULL, "17", NULL, CUBIND_ERROR_INVALID_VALUE, 0,
              "CUBIND_STAGING_THREADS='17' is not a count from 0 to 16");
  policy_case(NULL, "4K", "two", NULL, CUBIND_ERROR_INVALID_VALUE, 0,
              "CUBIND_STAGING_THREADS='two' is not a count from 0 to 16");
  policy_case(NULL, "1Q", "-1", NULL, CUBIND_ERROR_INVALID_VALUE, 0,
              "e.g. 8M; CUBIND_STAGING_THREADS='-1' is not a count from 0 to 16");
  policy_case(NULL, NULL, NULL, "soon", CUBIND_ERROR_INVALID_VALUE, 0,
              "CUBIND_STAGING_START='soon' is not a size");
}

/*
 * A fork's child after the staging threads started (they are not in the child): its exit does
 * not join them (it crashed in pthread_join, from the at-exit handler), and a _call in it does
 * not wait for them (it hung); the call returns, whatever its status (CUDA in a fork's child is
 * the driver's to refuse; the fake serves it).
 */
static void fork_after_staging(void **state) {
  staged_job job = {300 * 1024 + 5, 0, CUBIND_DIRECTION_INOUT};
  int mode;
  (void)state;
  cubind__set_staging(1, STAGING_MIN, 4, 0);
  round_trip_ok("before the fork", &job); /* starts the threads */
  for (mode = 0; mode < 2; mode++) {
    int status = 0, waited = 0;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      if (mode == 1)
        (void)staged_scenario(&job); /* a _call in the child, then exit */
      exit(0);
    }
    while (waitpid(pid, &status, WNOHANG) == 0 && waited++ < 200) /* 20 s */
      usleep(100000);
    if (waited > 200) {
      kill(pid, SIGKILL);
      (void)waitpid(pid, &status, 0);
      fail_msg("the child (%s) hung", mode ? "a _call, then exit" : "exit");
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      fail_msg("the child (%s) ended with status 0x%x", mode ? "a _call, then exit" : "exit",
               (unsigned)status);
  }
  round_trip_ok("after the forks", &job); /* the parent's threads still serve it */
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  cubind__set_staging(1, (size_t)1 << 20, 2, (size_t)256 << 20); /* the defaults */
}

int main(void) {
  /* First, while this process has not initialised cubind (the children inherit nothing). */
  const struct CMUnitTest environment[] = {cmocka_unit_test(policy_from_environment)};
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(staged_round_trips, test_setup),
      cmocka_unit_test_setup(registered_fallback, test_setup),
      cmocka_unit_test_setup(shared_registration, test_setup),
      cmocka_unit_test_setup(staged_failures, test_setup),
      cmocka_unit_test_setup(registered_failures, test_setup),
      cmocka_unit_test_setup(fork_after_staging, test_setup),
  };
  int failed = cmocka_run_group_tests(environment, NULL, NULL);
  return failed + RUN_RUNTIME_TESTS(tests, 4);
}
