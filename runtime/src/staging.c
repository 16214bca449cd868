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
 * call holds the threads or they cannot start, a buffer of at least 8 MiB is page-locked in place for the call (cuMemHostRegister, undone after
 * the call's final synchronisation) and smaller ones are copied plainly. Measured figures are in
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

cubind__copy_kind cubind__staging_kind(const void *host, size_t bytes) {
  CUpointer_attribute attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
  unsigned type = 0; /* CUmemorytype; 0 for memory the driver does not know (pageable) */
  void *data = &type;
  pthread_once(&policy_once, read_policy);
  if (!staging_on || policy_bad || bytes < staging_min || !cubind__drv.cuPointerGetAttributes)
    return CUBIND__COPY_PLAIN;
  if (cubind__drv.cuPointerGetAttributes(1, &attribute, &data, (CUdeviceptr)(uintptr_t)host) !=
      CUDA_SUCCESS)
    return CUBIND__COPY_PLAIN; /* unknown: let the driver decide */
  return type != 0 ? CUBIND__COPY_DIRECT : CUBIND__COPY_STAGED;
}

int cubind__staging_acquire(CUcontext ctx, size_t bytes) {
  pthread_once(&policy_once, read_policy);
  if (staging_threads < 2) return 0;
  if (__atomic_load_n(&traffic, __ATOMIC_RELAXED) < staging_start &&
      __atomic_add_fetch(&traffic, (unsigned long long)bytes, __ATOMIC_RELAXED) < staging_start)
    return 0; /* not worth starting them yet */
  return cubind__hostcopy_acquire(ctx, staging_threads);
}

int cubind__staging_register(void *host, size_t bytes) {
  if (bytes < REGISTER_MIN || !cubind__drv.cuMemHostRegister || !cubind__drv.cuMemHostUnregister)
    return 0;
  return cubind__drv.cuMemHostRegister(host, bytes, 0) == CUDA_SUCCESS; /* else: plainly */
}

CUresult cubind__staging_unregister(void *host) { return cubind__drv.cuMemHostUnregister(host); }
