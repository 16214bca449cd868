/*
 * staging.c: how `<kernel>_call` moves a pageable host buffer, decided here and nowhere else.
 *
 * The driver copies pageable memory through its own small page-locked buffers with one thread,
 * at a fraction of the link's rate (7-10 GB/s on an H100 against ~53 GB/s page-locked). A
 * pageable buffer of at least CUBIND_STAGING_MIN bytes (default 1 MiB) goes through the staging
 * threads instead (hostcopy.h: CUBIND_STAGING_THREADS threads, the caller included, default
 * the online processors up to 12, each copying chunks through page-locked slots while the
 * previous chunk's DMA runs), once the process's large pageable traffic has reached
 * CUBIND_STAGING_START bytes (default 256 MiB; see DEFAULT_START). Until then, and when another
 * call holds the threads or they cannot start, a buffer of at least 8 MiB is page-locked in
 * place for the call (cuMemHostRegister, undone after the call's final synchronisation, or by
 * the last running call that copies from it: see "the large host buffers of running calls"
 * below) and smaller ones are copied plainly. Measured figures are in
 * docs/benchmarks.md. Page-locked memory (cuMemAllocHost / cuMemHostRegister memory, seen by
 * cuPointerGetAttributes, which reports no error for ordinary memory) is copied directly.
 * CUBIND_PAGEABLE_STAGING=0 turns all of this off. A value that cannot be read fails every
 * _call (cubind__staging_check) instead of being misread.
 */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "driver.h"
#include "env.h"
#include "error.h"
#include "hostcopy.h"
#include "staging.h"

#define DEFAULT_THREADS 12 /* measured best on a 16-core H100 host: docs/benchmarks.md */
#define REGISTER_MIN ((size_t)8 << 20)       /* below this, registering costs more than it saves */
/*
 * Starting the threads (their page-locked slots, mostly) took 30 ms on an H100 host; they save
 * about 0.1 s per GB moved, so they start once the process's large pageable traffic reaches this
 * (one call or many): a program that copies little never pays for them.
 */
#define DEFAULT_START ((size_t)256 << 20)

static pthread_once_t policy_once = PTHREAD_ONCE_INIT;
static int staging_on = 1;
static size_t staging_min = (size_t)1 << 20;
static unsigned staging_threads;                  /* 0 or 1: no staging threads */
static size_t staging_start = DEFAULT_START;      /* traffic before the threads start */
static unsigned long long traffic;                /* atomic: large pageable bytes so far */
static int policy_bad;                            /* the environment held a value we reject */
static char policy_message[CUBIND_MESSAGE_SIZE]; /* ... and what is wrong with it */

static void read_policy(void) {
  char on_message[CUBIND_MESSAGE_SIZE / 3 - 8], min_message[CUBIND_MESSAGE_SIZE / 3 - 8];
  char threads_message[CUBIND_MESSAGE_SIZE / 3 - 8], start_message[CUBIND_MESSAGE_SIZE / 3 - 8];
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned fallback_threads = online < 1 ? 1 : online > DEFAULT_THREADS ? DEFAULT_THREADS : (unsigned)online;
  int bad_on = cubind__env_switch("CUBIND_PAGEABLE_STAGING", 1, &staging_on, on_message,
                                  sizeof on_message) != 0;
  int bad_min = cubind__env_size("CUBIND_STAGING_MIN", staging_min, &staging_min, min_message,
                                 sizeof min_message) != 0;
  int bad_threads = cubind__env_count("CUBIND_STAGING_THREADS", fallback_threads,
                                      CUBIND__HOSTCOPY_MAX_THREADS,
                                      &staging_threads, threads_message,
                                      sizeof threads_message) != 0;
  int bad_start = cubind__env_size("CUBIND_STAGING_START", staging_start, &staging_start,
                                   start_message, sizeof start_message) != 0;
  const char *parts[4];
  unsigned n = 0, i;
  size_t used = 0;
  if (bad_on) parts[n++] = on_message;
  if (bad_min) parts[n++] = min_message;
  if (bad_threads) parts[n++] = threads_message;
  if (bad_start) parts[n++] = start_message;
  policy_bad = n > 0;
  policy_message[0] = '\0';
  for (i = 0; i < n && used < sizeof policy_message; i++) {
    int written = snprintf(policy_message + used, sizeof policy_message - used, "%s%s",
                           i ? "; " : "", parts[i]);
    if (written < 0) break;
    used += (size_t)written;
  }
}

cubind_status cubind__staging_check(const char *what) {
  pthread_once(&policy_once, read_policy);
  if (CUBIND_LIKELY(!policy_bad)) return CUBIND_SUCCESS;
  return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "%s: %s", what, policy_message);
}

void cubind__set_staging(int on, size_t min_bytes, unsigned threads, size_t start_bytes) {
  pthread_once(&policy_once, read_policy);
  if (threads != staging_threads) cubind__hostcopy_shutdown(); /* restarts with the new count */
  staging_on = on;
  staging_min = min_bytes;
  staging_threads = threads;
  staging_start = start_bytes;
  __atomic_store_n(&traffic, 0, __ATOMIC_RELAXED);
  policy_bad = 0;
}

int cubind__staging_acquire(CUcontext ctx, size_t bytes) {
  pthread_once(&policy_once, read_policy);
  if (staging_threads < 2) return 0;
  if (__atomic_load_n(&traffic, __ATOMIC_RELAXED) < staging_start &&
      __atomic_add_fetch(&traffic, (unsigned long long)bytes, __ATOMIC_RELAXED) < staging_start)
    return 0; /* not worth starting them yet */
  return cubind__hostcopy_acquire(ctx, staging_threads);
}

/* ---- the large host buffers of running calls ------------------------------------------------ */

/*
 * Calls on several threads may pass the same host memory (the weights every device's thread
 * reads). Memory one call page-locked in place is copied by DMA for any call that copies from
 * it, after the copying call has returned from the driver; unregistering it under such a copy
 * would pull the pages from under the DMA. So every large pageable buffer of a running call is
 * recorded here as a range while the call runs, registered or not, and a registration is undone
 * only when no running call's range overlaps it any more: by the last call that touched it,
 * which returns after it is undone. A buffer inside another call's registered range shares it.
 * A range is registered only where no other registration overlaps it (the driver refuses).
 */
#define MAX_RANGES 256 /* at least CUBIND__MAX_STAGED_ARGS: one call always fits */

typedef struct host_range {
  uintptr_t begin, end;
  unsigned users; /* running calls holding it; the entry is free when 0 and not registered */
  int registered; /* page-locked in place by us */
} host_range;

static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t range_freed = PTHREAD_COND_INITIALIZER;
static host_range ranges[MAX_RANGES];
static unsigned ranges_taken; /* entries in use */

static int in_use(const host_range *r) { return r->users > 0 || r->registered; }
static int overlap(const host_range *r, uintptr_t begin, uintptr_t end) {
  return r->begin < end && begin < r->end;
}

/* A range of running calls other than `r` overlapping it? */
static int still_touched(const host_range *r) {
  unsigned i;
  for (i = 0; i < MAX_RANGES; i++)
    if (&ranges[i] != r && ranges[i].users > 0 && overlap(&ranges[i], r->begin, r->end)) return 1;
  return 0;
}

/* Records one large buffer for a call (ranges_lock held, a free entry exists): *hold. */
static cubind__copy_kind record(const void *host, size_t bytes, unsigned short *hold) {
  uintptr_t begin = (uintptr_t)host, end = begin + bytes;
  CUpointer_attribute attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
  unsigned type = 0; /* CUmemorytype; 0 for memory the driver does not know (pageable) */
  void *data = &type;
  cubind__copy_kind kind = CUBIND__COPY_STAGED;
  int overlapping = 0;
  unsigned i, free_entry = MAX_RANGES;
  for (i = 0; i < MAX_RANGES; i++) {
    host_range *r = &ranges[i];
    if (!in_use(r)) {
      if (free_entry == MAX_RANGES) free_entry = i;
    } else if (r->begin <= begin && end <= r->end) { /* inside: share it */
      r->users++;
      *hold = (unsigned short)(i + 1);
      return r->registered ? CUBIND__COPY_DIRECT : CUBIND__COPY_STAGED;
    } else if (overlap(r, begin, end)) {
      overlapping = 1;
    }
  }
  /* Not ours: page-locked by the program itself (copied directly, nothing to hold), pageable,
     or unknown (the driver decides; recorded all the same, so that nobody registers it). */
  if (!overlapping) {
    if (cubind__drv.cuPointerGetAttributes(1, &attribute, &data, (CUdeviceptr)begin) !=
        CUDA_SUCCESS)
      kind = CUBIND__COPY_PLAIN;
    else if (type != 0)
      return CUBIND__COPY_DIRECT;
  }
  ranges[free_entry].begin = begin;
  ranges[free_entry].end = end;
  ranges[free_entry].users = 1;
  ranges[free_entry].registered = 0;
  ranges_taken++;
  *hold = (unsigned short)(free_entry + 1);
  return kind;
}

/* Whether a call's host argument is one the staging policy moves other than plainly. */
static int large(const cubind_host_arg *h, size_t bytes) {
  return staging_on && !policy_bad && bytes > 0 && bytes >= staging_min &&
         (h->direction & CUBIND_DIRECTION_INOUT) && cubind__drv.cuPointerGetAttributes;
}

void cubind__staging_classify(const cubind_host_arg *host_args, unsigned n, size_t elements,
                              unsigned char *kind, unsigned short *hold) {
  unsigned i, num_large = 0;
  pthread_once(&policy_once, read_policy);
  for (i = 0; i < n; i++) {
    const cubind_host_arg *h = &host_args[i];
    kind[i] = CUBIND__COPY_PLAIN;
    hold[i] = 0;
    num_large += (unsigned)large(h, (elements ? elements : h->count) * h->elem_size);
  }
  if (!num_large) return; /* small buffers take no lock */
  pthread_mutex_lock(&ranges_lock);
  while (MAX_RANGES - ranges_taken < num_large) pthread_cond_wait(&range_freed, &ranges_lock);
  for (i = 0; i < n; i++) {
    const cubind_host_arg *h = &host_args[i];
    size_t bytes = (elements ? elements : h->count) * h->elem_size;
    if (large(h, bytes)) kind[i] = (unsigned char)record(h->host, bytes, &hold[i]);
  }
  pthread_mutex_unlock(&ranges_lock);
}

/* A registration overlapping `r` (the driver refuses a second one)? */
static int overlaps_registration(const host_range *r) {
  unsigned i;
  for (i = 0; i < MAX_RANGES; i++)
    if (ranges[i].registered && overlap(&ranges[i], r->begin, r->end)) return 1;
  return 0;
}

int cubind__staging_register(unsigned short hold) {
  host_range *r = &ranges[hold - 1];
  int registered;
  /* Under the lock, so that no call shares a range half registered (this path is the fallback of
     calls that found the staging threads busy; they register one at a time). */
  pthread_mutex_lock(&ranges_lock);
  registered = r->registered;
  if (!registered && r->end - r->begin >= REGISTER_MIN && cubind__drv.cuMemHostRegister &&
      cubind__drv.cuMemHostUnregister) {
    registered = r->registered = /* else: plainly */
        !overlaps_registration(r) &&
        cubind__drv.cuMemHostRegister((void *)r->begin, r->end - r->begin, 0) == CUDA_SUCCESS;
  }
  pthread_mutex_unlock(&ranges_lock);
  return registered;
}

CUresult cubind__staging_release(unsigned short hold) {
  host_range *released = &ranges[hold - 1];
  CUresult result = CUDA_SUCCESS;
  unsigned i;
  pthread_mutex_lock(&ranges_lock);
  if (--released->users == 0) {
    if (!released->registered) ranges_taken--;
    /* Registrations this range kept, its own included, that no running call touches now. */
    for (i = 0; i < MAX_RANGES; i++) {
      host_range *r = &ranges[i];
      if (r->registered && r->users == 0 && overlap(r, released->begin, released->end) &&
          !still_touched(r)) {
        CUresult undone = cubind__drv.cuMemHostUnregister((void *)r->begin);
        if (result == CUDA_SUCCESS) result = undone;
        r->registered = 0; /* the driver forgets it even when it reports an error */
        ranges_taken--;
      }
    }
    pthread_cond_broadcast(&range_freed);
  }
  pthread_mutex_unlock(&ranges_lock);
  return result;
}
