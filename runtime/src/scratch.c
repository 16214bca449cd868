/*
 * scratch.c: per-thread device scratch arenas for the host-buffer path, and
 * cubind_release_scratch. A thread's arenas are freed by a pthread key destructor when it exits,
 * and the exiting thread's at exit() (key destructors do not run for it).
 */
#include <pthread.h>
#include <stdlib.h>

#include "driver.h"
#include "error.h"
#include "hostcopy.h"
#include "result.h"
#include "scratch.h"

/* One thread's device scratch arena on one device. */
typedef struct scratch_arena {
  CUdeviceptr base;
  size_t capacity;
  CUcontext context; /* where it was allocated */
} scratch_arena;

typedef struct thread_scratch {
  int num_devices;
  scratch_arena arenas[]; /* one per device */
} thread_scratch;

static pthread_once_t scratch_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t scratch_key;
static int scratch_key_ok;

/* Makes `ctx` current if it is not already (*current tracks it). */
static CUresult switch_to(CUcontext ctx, CUcontext *current) {
  CUresult r = CUDA_SUCCESS;
  if (ctx != *current) {
    r = cubind__drv.cuCtxSetCurrent(ctx);
    if (r == CUDA_SUCCESS) *current = ctx;
  }
  return r;
}

/*
 * Frees every arena of `ts` (each in its own context) and `ts` itself. Returns the first failure;
 * keeps freeing after one so that nothing else leaks. Leaves `restore` current afterwards.
 */
static cubind_status free_scratch(thread_scratch *ts, CUcontext restore) {
  cubind_status status = CUBIND_SUCCESS;
  CUcontext current = restore;
  int i;
  for (i = 0; i < ts->num_devices; i++) {
    scratch_arena *a = &ts->arenas[i];
    CUresult r;
    if (!a->base) continue;
    r = switch_to(a->context, &current);
    if (r == CUDA_SUCCESS) r = cubind__drv.cuMemFree(a->base);
    if (r != CUDA_SUCCESS && status == CUBIND_SUCCESS)
      status = cubind__fail_cuda(r, CUBIND_ERROR_CUDA,
                                 "cubind_release_scratch: freeing %zu bytes of scratch on device "
                                 "%d failed",
                                 a->capacity, i);
  }
  if (current != restore) (void)cubind__drv.cuCtxSetCurrent(restore); /* best effort */
  free(ts);
  return status;
}

/* pthread key destructor: a thread's scratch goes away with the thread. */
static void scratch_destructor(void *value) { (void)free_scratch(value, NULL); }

/*
 * At exit: key destructors do not run for the thread that calls exit() (usually main), so its
 * scratch is freed here; otherwise it would outlive the program's last cubind call as a leak
 * (compute-sanitizer's leak check reports it).
 */
static void release_scratch_at_exit(void) { (void)cubind_release_scratch(); }

static void scratch_key_create(void) {
  scratch_key_ok = pthread_key_create(&scratch_key, scratch_destructor) == 0;
  if (scratch_key_ok) (void)atexit(release_scratch_at_exit);
}

cubind_status cubind__scratch(const char *what, int device, CUcontext ctx, size_t bytes,
                              CUdeviceptr *base) {
  thread_scratch *ts;
  scratch_arena *a;
  size_t capacity;
  CUresult r;
  pthread_once(&scratch_key_once, scratch_key_create);
  if (!scratch_key_ok)
    return cubind__fail(CUBIND_ERROR_OUT_OF_MEMORY, "%s: cannot create a thread key", what);
  ts = pthread_getspecific(scratch_key);
  if (!ts) {
    int n = cubind__device_count();
    ts = calloc(1, sizeof *ts + (size_t)n * sizeof ts->arenas[0]);
    if (!ts) return cubind__fail(CUBIND_ERROR_OUT_OF_MEMORY, "%s: out of host memory", what);
    ts->num_devices = n;
    if (pthread_setspecific(scratch_key, ts) != 0) {
      free(ts);
      return cubind__fail(CUBIND_ERROR_OUT_OF_MEMORY, "%s: cannot set thread data", what);
    }
  }
  a = &ts->arenas[device];
  if (a->capacity >= bytes && a->context == ctx) {
    *base = a->base;
    return CUBIND_SUCCESS;
  }
  /* Grow geometrically so that slowly growing calls do not reallocate every time. */
  capacity = a->capacity + a->capacity / 2 > bytes ? a->capacity + a->capacity / 2 : bytes;
  if (a->base) { /* too small: replace it (idle: every _call synchronises before returning) */
    r = cubind__drv.cuMemFree(a->base);
    if (r != CUDA_SUCCESS) /* keep it: the thread-exit destructor tries again */
      return cubind__fail_cuda(r, CUBIND_ERROR_CUDA, "%s: cuMemFree of the old scratch failed",
                               what);
    a->base = 0;
    a->capacity = 0;
  }
  r = cubind__drv.cuMemAlloc(&a->base, capacity);
  if (r != CUDA_SUCCESS) {
    a->base = 0;
    return cubind__fail_cuda(r, CUBIND_ERROR_OUT_OF_MEMORY,
                             "%s: cuMemAlloc of %zu bytes of device scratch failed", what,
                             capacity);
  }
  a->capacity = capacity;
  a->context = ctx;
  *base = a->base;
  return CUBIND_SUCCESS;
}

cubind_status cubind_release_scratch(void) {
  thread_scratch *ts;
  CUcontext current = NULL;
  CUresult r;
  cubind__hostcopy_shutdown(); /* the staging threads and their slots, if no call uses them */
  pthread_once(&scratch_key_once, scratch_key_create);
  if (!scratch_key_ok || !(ts = pthread_getspecific(scratch_key))) return CUBIND_SUCCESS;
  (void)pthread_setspecific(scratch_key, NULL);
  r = cubind__drv.cuCtxGetCurrent(&current);
  if (r != CUDA_SUCCESS) current = NULL; /* still free everything; restore nothing */
  return free_scratch(ts, current);
}
