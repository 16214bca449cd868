/*
 * hostcopy.c: the pool of copying threads behind large pageable `<kernel>_call` buffers
 * (hostcopy.h).
 *
 * A job is a list of segments cut into chunks of at most one slot. The caller and the pool's
 * threads take chunks in turn. To the device, a thread copies its chunk into one of its two
 * page-locked slots, queues the DMA from the slot on its own stream and records the slot's
 * event; it reuses a slot only after that event, so its memcpy of the next chunk overlaps the
 * DMA of the last one. To the host, it queues the DMA into a slot and copies the slot out once
 * the event fires, one chunk behind. Page-locked segments are DMA'd directly, without a slot.
 * Measured on an H100 (docs/benchmarks.md, 2026-11-25 b): one thread's memcpy caps a ring of
 * slots at about the driver's own pageable rate (7 GB/s); 12 threads with 1 MiB slots and
 * cache-bypassing stores copy 33-34 GB/s each way from 64 MiB, 1.6x the driver at 1 MiB.
 *
 * Threads block every signal (the program's handlers run on its own threads) and sleep on a
 * condition variable between jobs. One call holds the pool at a time (a mutex taken with
 * trylock: a call that finds it busy copies another way instead of waiting).
 */
#define _POSIX_C_SOURCE 200809L /* pthread_sigmask, sigfillset */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "driver.h"
#include "hostcopy.h"

#define SLOT_BYTES ((size_t)1 << 20) /* a chunk's largest size, each slot's (measured best) */
#define MIN_CHUNK_BYTES ((size_t)128 << 10) /* smaller: the DMAs' fixed costs add up (measured) */

/*
 * After a job a thread spins this long before it sleeps: a call's copies out follow its copies
 * in by about a kernel's time, and a sleeping thread takes tens of microseconds to wake (more
 * in a virtual machine), as long as a megabyte takes to copy. OpenMP runtimes spin likewise.
 */
#define SPIN_NS 200000
#if defined(__x86_64__) || defined(__i386__)
#define CUBIND_SPIN_PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define CUBIND_SPIN_PAUSE() __asm__ __volatile__("yield")
#else
#define CUBIND_SPIN_PAUSE() ((void)0)
#endif

enum { SLOT_IDLE, SLOT_TO_DEVICE, SLOT_TO_HOST };

/* A page-locked buffer of SLOT_BYTES and the copy that uses it. */
typedef struct hostcopy_slot {
  char *memory;
  CUevent done; /* recorded after the slot's DMA */
  int state;    /* SLOT_* */
  void *host;   /* SLOT_TO_HOST: where its bytes go once `done` fires */
  size_t bytes;
  unsigned segment;
} hostcopy_slot;

/* One copying thread (worker 0 is whichever caller holds the pool). */
typedef struct hostcopy_worker {
  pthread_t thread;
  unsigned long seen; /* the last job generation it ran */
  CUcontext current;  /* the context current on its thread */
  CUstream stream;
  hostcopy_slot slots[2];
  unsigned next; /* the slot its next chunk uses (the older one) */
} hostcopy_worker;

static pthread_mutex_t pool_busy = PTHREAD_MUTEX_INITIALIZER; /* held by the call using it */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER; /* what the threads share */
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER;   /* a job, or stopping */
static pthread_cond_t pool_idle = PTHREAD_COND_INITIALIZER;   /* the last thread's job is done */

static struct {
  unsigned long generation; /* bumped for each job */
  unsigned running;         /* threads still on the current job */
  int stopping;

  int started, broken; /* broken: it could not start; copy another way until shutdown */
  int forked;          /* this is a fork's child: broken for good */
  unsigned num_workers; /* including worker 0 */
  char *slot_memory;
  CUcontext slot_context; /* where slot_memory was allocated */
  CUcontext context;      /* of the streams and events; NULL: none */
  CUevent after;
  int wait_after;
  hostcopy_worker workers[CUBIND__HOSTCOPY_MAX_THREADS];

  /* the current job */
  const cubind__host_segment *segments;
  unsigned num_segments, next_segment;
  unsigned helpers; /* workers 1..helpers take part (one chunk each at least) */
  size_t next_offset, chunk;
  CUresult result;
  const char *failed;
  unsigned failed_segment;
} pool;

static pthread_once_t at_exit_once = PTHREAD_ONCE_INIT;

/*
 * memcpy for data that is not read again soon: on x86-64, stores that bypass the cache, so that
 * the destination's lines are not read first; the copy then moves two bytes of memory traffic
 * per byte instead of three, and memory bandwidth is what several copying threads run out of.
 * Elsewhere, memcpy.
 */
static void copy_streaming(void *dst, const void *src, size_t bytes) {
#if defined(__x86_64__) && defined(__SSE2__)
  char *d = dst;
  const char *s = src;
  size_t head = (size_t)(-(uintptr_t)d & 15u), i;
  if (bytes < 256) {
    memcpy(dst, src, bytes);
    return;
  }
  memcpy(d, s, head); /* up to the destination's first 16-byte boundary */
  d += head, s += head, bytes -= head;
  for (i = 0; i + 64 <= bytes; i += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
    __m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
    _mm_stream_si128((__m128i *)(d + i), a);
    _mm_stream_si128((__m128i *)(d + i + 16), b);
    _mm_stream_si128((__m128i *)(d + i + 32), c);
    _mm_stream_si128((__m128i *)(d + i + 48), e);
  }
  memcpy(d + i, s + i, bytes - i);
  _mm_sfence(); /* the streamed stores are seen before the DMA or the caller reads them */
#else
  memcpy(dst, src, bytes);
#endif
}

/* Monotonic nanoseconds, for the spin before sleeping. */
static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The next chunk of the job: 1 and its segment, offset and length; 0 when none is left. */
static int take_chunk(unsigned *segment, size_t *offset, size_t *bytes) {
  int found = 0;
  pthread_mutex_lock(&pool_lock);
  while (pool.result == CUDA_SUCCESS && pool.next_segment < pool.num_segments) {
    const cubind__host_segment *s = &pool.segments[pool.next_segment];
    if (pool.next_offset < s->bytes) {
      size_t left = s->bytes - pool.next_offset;
      *segment = pool.next_segment;
      *offset = pool.next_offset;
      *bytes = left < pool.chunk ? left : pool.chunk;
      pool.next_offset += *bytes;
      found = 1;
      break;
    }
    pool.next_segment++;
    pool.next_offset = 0;
  }
  pthread_mutex_unlock(&pool_lock);
  return found;
}

/* Records the job's first failure; the other threads stop taking chunks. */
static void job_failed(CUresult r, const char *step, unsigned segment) {
  pthread_mutex_lock(&pool_lock);
  if (pool.result == CUDA_SUCCESS) {
    pool.result = r;
    pool.failed = step;
    pool.failed_segment = segment;
  }
  pthread_mutex_unlock(&pool_lock);
}

/* Completes a slot's copy: waits for its DMA and, to the host, copies its bytes out. */
static CUresult finish_slot(hostcopy_slot *slot, const char **step) {
  CUresult r = CUDA_SUCCESS;
  if (slot->state == SLOT_IDLE) return CUDA_SUCCESS;
  r = cubind__drv.cuEventSynchronize(slot->done);
  if (r == CUDA_SUCCESS && slot->state == SLOT_TO_HOST)
    copy_streaming(slot->host, slot->memory, slot->bytes);
  if (r != CUDA_SUCCESS) *step = "cuEventSynchronize of a staging slot";
  slot->state = SLOT_IDLE;
  return r;
}

/* Queues one chunk: through a slot, or directly for page-locked memory. */
static CUresult copy_chunk(hostcopy_worker *w, const cubind__host_segment *s, unsigned segment,
                           size_t offset, size_t bytes, const char **step) {
  char *host = (char *)s->host + offset;
  CUdeviceptr device = s->device + offset;
  hostcopy_slot *slot;
  CUresult r;
  if (s->direct) {
    *step = s->to_device ? "cuMemcpyHtoDAsync of a page-locked chunk"
                         : "cuMemcpyDtoHAsync of a page-locked chunk";
    return s->to_device ? cubind__drv.cuMemcpyHtoDAsync(device, host, bytes, w->stream)
                        : cubind__drv.cuMemcpyDtoHAsync(host, device, bytes, w->stream);
  }
  slot = &w->slots[w->next];
  w->next ^= 1u;
  if ((r = finish_slot(slot, step)) != CUDA_SUCCESS) return r;
  if (s->to_device) {
    copy_streaming(slot->memory, host, bytes);
    *step = "cuMemcpyHtoDAsync from a staging slot";
    r = cubind__drv.cuMemcpyHtoDAsync(device, slot->memory, bytes, w->stream);
  } else {
    *step = "cuMemcpyDtoHAsync into a staging slot";
    r = cubind__drv.cuMemcpyDtoHAsync(slot->memory, device, bytes, w->stream);
  }
  if (r != CUDA_SUCCESS) return r;
  *step = "cuEventRecord of a staging slot";
  if ((r = cubind__drv.cuEventRecord(slot->done, w->stream)) != CUDA_SUCCESS) return r;
  slot->state = s->to_device ? SLOT_TO_DEVICE : SLOT_TO_HOST;
  slot->host = host;
  slot->bytes = bytes;
  slot->segment = segment;
  return CUDA_SUCCESS;
}

/* One thread's share of the job: chunks until none is left, then its slots and stream drained. */
static void work(hostcopy_worker *w, int is_caller) {
  CUresult r = CUDA_SUCCESS, drained;
  const char *step = NULL;
  unsigned segment = 0, i;
  size_t offset, bytes;
  int waited = 0;
  if (!is_caller && w->current != pool.context) { /* the caller's context is current already */
    step = "cuCtxSetCurrent on a staging thread";
    if ((r = cubind__drv.cuCtxSetCurrent(pool.context)) == CUDA_SUCCESS) w->current = pool.context;
  }
  while (r == CUDA_SUCCESS && take_chunk(&segment, &offset, &bytes)) {
    const cubind__host_segment *s = &pool.segments[segment];
    if (!s->to_device && pool.wait_after && !waited) { /* results first, then copies out */
      step = "cuStreamWaitEvent on a staging stream";
      if ((r = cubind__drv.cuStreamWaitEvent(w->stream, pool.after, 0)) != CUDA_SUCCESS) break;
      waited = 1;
    }
    r = copy_chunk(w, s, segment, offset, bytes, &step);
  }
  /* Drain, the older slot first; after a failure only wait, so that no DMA outlives the job. */
  for (i = 0; i < 2; i++) {
    hostcopy_slot *slot = &w->slots[(w->next + i) & 1u];
    const char *slot_step = NULL;
    if (r != CUDA_SUCCESS) slot->state = SLOT_IDLE;
    if (slot->state == SLOT_IDLE) continue;
    drained = finish_slot(slot, &slot_step);
    if (drained != CUDA_SUCCESS && r == CUDA_SUCCESS) {
      r = drained;
      step = slot_step;
      segment = slot->segment;
    }
  }
  drained = cubind__drv.cuStreamSynchronize(w->stream);
  if (drained != CUDA_SUCCESS && r == CUDA_SUCCESS) {
    r = drained;
    step = "cuStreamSynchronize of a staging stream";
  }
  if (r != CUDA_SUCCESS) job_failed(r, step, segment);
}

static void *worker_main(void *arg) {
  hostcopy_worker *w = arg;
  for (;;) {
    long long deadline = now_ns() + SPIN_NS;
    while (__atomic_load_n(&pool.generation, __ATOMIC_ACQUIRE) == w->seen &&
           !__atomic_load_n(&pool.stopping, __ATOMIC_ACQUIRE) && now_ns() < deadline)
      CUBIND_SPIN_PAUSE();
    pthread_mutex_lock(&pool_lock);
    while (pool.generation == w->seen && !pool.stopping) pthread_cond_wait(&pool_wake, &pool_lock);
    if (pool.stopping) break;
    w->seen = pool.generation;
    pthread_mutex_unlock(&pool_lock);
    if ((unsigned)(w - pool.workers) <= pool.helpers) work(w, 0); /* else: too few chunks */
    pthread_mutex_lock(&pool_lock);
    if (--pool.running == 0) pthread_cond_signal(&pool_idle);
    pthread_mutex_unlock(&pool_lock);
  }
  pthread_mutex_unlock(&pool_lock);
  return NULL;
}

static void shutdown_at_exit(void) { cubind__hostcopy_shutdown(); }

/* A fork's child has none of the parent's threads (nor a usable CUDA context): its exit must not
   join them, and its calls must not wait for them. It copies the other way from then on. */
static void forget_in_child(void) {
  pool.started = 0;
  pool.num_workers = 0;
  pool.slot_memory = NULL;
  pool.context = NULL;
  pool.broken = 1;
  pool.forked = 1;
}

static void register_at_exit(void) {
  (void)atexit(shutdown_at_exit);
  (void)pthread_atfork(NULL, NULL, forget_in_child);
}

/* Destroys the streams and events of the bound context (best effort: it may be gone). */
static void unbind_context(void) {
  unsigned i, j;
  for (i = 0; i < pool.num_workers; i++) {
    hostcopy_worker *w = &pool.workers[i];
    if (w->stream) (void)cubind__drv.cuStreamDestroy(w->stream);
    w->stream = NULL;
    for (j = 0; j < 2; j++) {
      if (w->slots[j].done) (void)cubind__drv.cuEventDestroy(w->slots[j].done);
      w->slots[j].done = NULL;
      w->slots[j].state = SLOT_IDLE;
    }
  }
  if (pool.after) (void)cubind__drv.cuEventDestroy(pool.after);
  pool.after = NULL;
  pool.context = NULL;
}

/* Creates each worker's stream and slot events, and the job's `after` event, in ctx. */
static int bind_context(CUcontext ctx) {
  unsigned i, j;
  int ok = 1;
  unbind_context();
  for (i = 0; ok && i < pool.num_workers; i++) {
    hostcopy_worker *w = &pool.workers[i];
    ok = cubind__drv.cuStreamCreate(&w->stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS;
    if (!ok) w->stream = NULL;
    for (j = 0; ok && j < 2; j++) {
      ok = cubind__drv.cuEventCreate(&w->slots[j].done, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS;
      if (!ok) w->slots[j].done = NULL;
    }
  }
  if (ok) {
    ok = cubind__drv.cuEventCreate(&pool.after, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS;
    if (!ok) pool.after = NULL;
  }
  if (!ok) {
    unbind_context();
    return 0;
  }
  pool.context = ctx;
  return 1;
}

/* Allocates the slots and starts threads - 1 threads (fewer if the system refuses some). */
static int start(CUcontext ctx, unsigned threads) {
  sigset_t all, old;
  unsigned i;
  void *memory = NULL;
  if (threads > CUBIND__HOSTCOPY_MAX_THREADS) threads = CUBIND__HOSTCOPY_MAX_THREADS;
  if (cubind__drv.cuMemHostAlloc(&memory, 2 * (size_t)threads * SLOT_BYTES,
                                 CU_MEMHOSTALLOC_PORTABLE) != CUDA_SUCCESS)
    return 0;
  pool.slot_memory = memory;
  pool.slot_context = ctx;
  memset(pool.workers, 0, sizeof pool.workers);
  for (i = 0; i < threads; i++) {
    pool.workers[i].slots[0].memory = pool.slot_memory + (2 * (size_t)i) * SLOT_BYTES;
    pool.workers[i].slots[1].memory = pool.slot_memory + (2 * (size_t)i + 1) * SLOT_BYTES;
  }
  pool.num_workers = 1;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_mutex_lock(&pool_lock);
  for (i = 1; i < threads; i++) {
    pool.workers[i].seen = pool.generation;
    if (pthread_create(&pool.workers[i].thread, NULL, worker_main, &pool.workers[i]) != 0) break;
    pool.num_workers++;
  }
  pthread_mutex_unlock(&pool_lock);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pool.started = 1;
  pthread_once(&at_exit_once, register_at_exit);
  return pool.num_workers > 1;
}

int cubind__hostcopy_acquire(CUcontext ctx, unsigned threads) {
  if (threads < 2 || !cubind__drv.cuMemHostAlloc || !cubind__drv.cuStreamWaitEvent) return 0;
  if (pthread_mutex_trylock(&pool_busy) != 0) return 0; /* another call's: copy another way */
  if (!pool.broken && !pool.started && !start(ctx, threads)) pool.broken = 1;
  if (pool.broken || (pool.context != ctx && !bind_context(ctx))) {
    pthread_mutex_unlock(&pool_busy);
    return 0;
  }
  return 1;
}

void cubind__hostcopy_release(void) { pthread_mutex_unlock(&pool_busy); }

CUresult cubind__hostcopy_run(const cubind__host_segment *segments, unsigned num_segments,
                              const CUstream *after, const char **failed,
                              unsigned *failed_segment) {
  size_t total = 0, chunk, chunks;
  unsigned i;
  int to_host = 0;
  CUresult r;
  for (i = 0; i < num_segments; i++) {
    total += segments[i].bytes;
    if (!segments[i].to_device && segments[i].bytes) to_host = 1;
  }
  if (total == 0) return CUDA_SUCCESS;
  /* A chunk for every thread, none larger than a slot or smaller than useful. */
  chunk = total / (size_t)pool.num_workers;
  chunk = chunk < MIN_CHUNK_BYTES ? MIN_CHUNK_BYTES : chunk > SLOT_BYTES ? SLOT_BYTES : chunk;
  chunk = (chunk + 4095) & ~(size_t)4095;
  chunks = (total + chunk - 1) / chunk;
  pool.wait_after = to_host && after;
  if (pool.wait_after && (r = cubind__drv.cuEventRecord(pool.after, *after)) != CUDA_SUCCESS) {
    *failed = "cuEventRecord after the kernel";
    *failed_segment = 0;
    return r;
  }
  pthread_mutex_lock(&pool_lock);
  pool.segments = segments;
  pool.num_segments = num_segments;
  pool.next_segment = 0;
  pool.next_offset = 0;
  pool.chunk = chunk;
  pool.result = CUDA_SUCCESS;
  pool.failed = NULL;
  pool.failed_segment = 0;
  pool.helpers = (unsigned)(chunks < pool.num_workers ? chunks : pool.num_workers) - 1;
  if (pool.helpers > 0) { /* wake the threads (those not needed go back to sleep) */
    pool.running = pool.num_workers - 1;
    __atomic_store_n(&pool.generation, pool.generation + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool_wake);
  }
  pthread_mutex_unlock(&pool_lock);

  work(&pool.workers[0], 1);

  pthread_mutex_lock(&pool_lock);
  while (pool.running > 0) pthread_cond_wait(&pool_idle, &pool_lock);
  r = pool.result;
  *failed = pool.failed;
  *failed_segment = pool.failed_segment;
  pool.segments = NULL;
  pthread_mutex_unlock(&pool_lock);
  return r;
}

void cubind__hostcopy_shutdown(void) {
  CUcontext current = NULL;
  unsigned i;
  if (pthread_mutex_trylock(&pool_busy) != 0) return; /* in use: it stays */
  if (pool.started) {
    pthread_mutex_lock(&pool_lock);
    __atomic_store_n(&pool.stopping, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool_wake);
    pthread_mutex_unlock(&pool_lock);
    for (i = 1; i < pool.num_workers; i++) pthread_join(pool.workers[i].thread, NULL);
    __atomic_store_n(&pool.stopping, 0, __ATOMIC_RELEASE);
    unbind_context();
    /* page-locked memory is freed in a context: the one it came from */
    if (cubind__drv.cuCtxGetCurrent(&current) != CUDA_SUCCESS) current = NULL;
    if (current != pool.slot_context) (void)cubind__drv.cuCtxSetCurrent(pool.slot_context);
    (void)cubind__drv.cuMemFreeHost(pool.slot_memory);
    if (current != pool.slot_context) (void)cubind__drv.cuCtxSetCurrent(current);
    pool.slot_memory = NULL;
    pool.num_workers = 0;
    pool.started = 0;
  }
  pool.broken = pool.forked;
  pthread_mutex_unlock(&pool_busy);
}
