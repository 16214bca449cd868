/*
 * soak.c: 1,000,000 launches and 10,000 _call round trips across 8 threads and 2 streams, with
 * the results checked along the way and host and device memory checked flat from start to end.
 *
 *   soak [launches [calls]]     defaults 1000000 10000; exit 0 passed, 1 failed, 77 no GPU
 *
 * Each thread owns device buffers x and y (n = 4096 floats) and a host buffer v (n unsigneds),
 * and uses stream (thread % 2). Per thread, launches / 8 soak_axpy launches add a random
 * a in {-1, 0, 1} times x (random integers in [-8, 8]) to y: y stays exact in float, and the
 * CPU knows y = y0 + (sum of a) * x. Every `calls / launches` launches a soak_mix _call runs on v
 * and is checked against the CPU at once. Ten times per thread (and at the end) y is copied back
 * and checked.
 * Memory: after a warm-up (every thread: 2,000 launches and 20 calls), host RSS
 * (/proc/self/statm) and device free memory (cuMemGetInfo, through the driver cubind loaded,
 * with device 0's primary context: cubind has no memory-info call) are sampled at every
 * checkpoint. "Flat": every sample after the warm-up within 4 MiB (host) and 8 MiB (device)
 * of the warm-up sample. Figures are printed; the run takes ~10-60 s on an H100.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "soak_kernels.cubind.h"

enum { THREADS = 8, STREAMS = 2, N = 4096, BLOCK = 256, CHECKS = 10 };
enum { WARMUP_LAUNCHES = 2000, WARMUP_CALLS = 20 };
#define HOST_TOLERANCE (4.0 * 1024 * 1024)
#define DEVICE_TOLERANCE (8.0 * 1024 * 1024)

static long total_launches = 1000000, total_calls = 10000;
static CUstream streams[STREAMS];
static pthread_barrier_t warm, sampled;
static volatile int failed;

/* ---- memory figures ------------------------------------------------------------------------ */

typedef int (*mem_get_info_fn)(size_t *, size_t *);
typedef int (*ctx_retain_fn)(CUcontext *, int);
typedef int (*ctx_push_fn)(CUcontext);
typedef int (*ctx_pop_fn)(CUcontext *);
static mem_get_info_fn mem_get_info;
static ctx_retain_fn ctx_retain;
static ctx_push_fn ctx_push;
static ctx_pop_fn ctx_pop;
static CUcontext primary;

static void open_driver(void) {
  const char *path = getenv("CUBIND_DRIVER_LIBRARY");
  void *lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib)
    lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW);
  if (lib) { /* memcpy: ISO C has no cast from void * to a function pointer */
    void *p;
    p = dlsym(lib, "cuMemGetInfo_v2"), memcpy(&mem_get_info, &p, sizeof p);
    p = dlsym(lib, "cuDevicePrimaryCtxRetain"), memcpy(&ctx_retain, &p, sizeof p);
    p = dlsym(lib, "cuCtxPushCurrent_v2"), memcpy(&ctx_push, &p, sizeof p);
    p = dlsym(lib, "cuCtxPopCurrent_v2"), memcpy(&ctx_pop, &p, sizeof p);
  }
  if (!mem_get_info || !ctx_retain || !ctx_push || !ctx_pop || ctx_retain(&primary, 0) != 0) {
    fprintf(stderr, "soak: cannot read device memory through the driver\n");
    exit(1);
  }
}

static double device_free(void) {
  size_t free_bytes = 0, total = 0;
  CUcontext ignored;
  if (ctx_push(primary) != 0 || mem_get_info(&free_bytes, &total) != 0 || ctx_pop(&ignored) != 0) {
    fprintf(stderr, "soak: cuMemGetInfo failed\n");
    exit(1);
  }
  return (double)free_bytes;
}

static double host_rss(void) {
  long pages = 0, resident = 0;
  FILE *statm = fopen("/proc/self/statm", "r");
  if (!statm || fscanf(statm, "%ld %ld", &pages, &resident) != 2) {
    fprintf(stderr, "soak: cannot read /proc/self/statm\n");
    exit(1);
  }
  fclose(statm);
  return (double)resident * (double)sysconf(_SC_PAGESIZE);
}

/* ---- the worker threads ----------------------------------------------------------------- */

static uint64_t next(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1DULL;
}

static void fail(int thread, const char *what, cubind_status status) {
  fprintf(stderr, "soak: thread %d: %s: %s: %s\n", thread, what, cubind_status_name(status),
          cubind_last_error());
  failed = 1;
}

typedef struct worker {
  int index;
  long launches, calls, checks;
} worker;

static int check_y(worker *w, CUstream stream, const float *dy, const float *y0, const float *x,
                   long sum_a, float *host) {
  cubind_status status = cubind_stream_synchronize(stream);
  int i;
  if (status == CUBIND_SUCCESS)
    status = cubind_from_device(host, dy, N * sizeof(float));
  if (status != CUBIND_SUCCESS) {
    fail(w->index, "copying y back", status);
    return 1;
  }
  for (i = 0; i < N; i++)
    if (host[i] != y0[i] + (float)sum_a * x[i]) {
      fprintf(stderr, "soak: thread %d: y[%d] = %g after %ld launches, expected %g\n", w->index, i,
              host[i], w->launches, y0[i] + (float)sum_a * x[i]);
      failed = 1;
      return 1;
    }
  w->checks++;
  return 0;
}

static void *work(void *arg) {
  worker *w = arg;
  CUstream stream = streams[w->index % STREAMS];
  long launches = total_launches / THREADS, calls = total_calls / THREADS;
  long call_every = calls ? launches / calls : 0, check_every = launches / CHECKS, sum_a = 0, i;
  uint64_t rng = 0x9E3779B97F4A7C15ULL * (uint64_t)(w->index + 1);
  float x[N], y0[N], host[N];
  unsigned v[N], expect[N];
  float *dx = NULL, *dy = NULL;
  cubind_config cfg = cubind_config_1d(N, BLOCK), call_cfg = cubind_config_1d(N, BLOCK);
  cubind_status status;
  int k, warmed = 0;
  cfg.stream = stream;
  call_cfg.stream = stream;
  for (k = 0; k < N; k++) {
    x[k] = (float)((int)(next(&rng) % 17) - 8);
    y0[k] = (float)((int)(next(&rng) % 1001) - 500);
    v[k] = expect[k] = (unsigned)next(&rng);
  }
  if ((status = cubind_malloc((void **)&dx, sizeof x)) != CUBIND_SUCCESS ||
      (status = cubind_malloc((void **)&dy, sizeof y0)) != CUBIND_SUCCESS ||
      (status = cubind_to_device(dx, x, sizeof x)) != CUBIND_SUCCESS ||
      (status = cubind_to_device(dy, y0, sizeof y0)) != CUBIND_SUCCESS)
    fail(w->index, "setting up", status);
  for (i = 0; i < launches && !failed; i++) {
    float a = (float)((int)(next(&rng) % 3) - 1);
    if (!warmed && i == WARMUP_LAUNCHES) { /* every thread has warmed up: main samples memory */
      warmed = 1;
      pthread_barrier_wait(&warm);
      pthread_barrier_wait(&sampled);
    }
    status = soak_axpy_launch(&cfg, dy, dx, a, N);
    if (status != CUBIND_SUCCESS) {
      fail(w->index, "soak_axpy_launch", status);
      break;
    }
    sum_a += (long)a;
    w->launches++;
    if (call_every && i % call_every == call_every - 1 && w->calls < calls) {
      unsigned add = (unsigned)next(&rng);
      status = soak_mix_call(&call_cfg, v, add, N);
      if (status != CUBIND_SUCCESS) {
        fail(w->index, "soak_mix_call", status);
        break;
      }
      for (k = 0; k < N; k++) {
        expect[k] = expect[k] * 3u + add + (unsigned)k;
        if (v[k] != expect[k]) {
          fprintf(stderr, "soak: thread %d: v[%d] = %u after call %ld, expected %u\n", w->index,
                  k, v[k], w->calls + 1, expect[k]);
          failed = 1;
          break;
        }
      }
      w->calls++;
    }
    if (check_every && i % check_every == check_every - 1 && check_y(w, stream, dy, y0, x, sum_a, host))
      break;
  }
  if (!warmed) { /* fewer launches than the warm-up (or a failure): still meet main */
    pthread_barrier_wait(&warm);
    pthread_barrier_wait(&sampled);
  }
  if (!failed)
    check_y(w, stream, dy, y0, x, sum_a, host);
  cubind_free(dx);
  cubind_free(dy);
  return NULL;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  pthread_t threads[THREADS];
  worker workers[THREADS];
  double rss0, free0, rss_warm, free_warm, rss_end, free_end, start, warm_time, end;
  long launches = 0, calls = 0, checks = 0;
  int t, s;
  cubind_status status;
  if (argc > 1) total_launches = atol(argv[1]);
  if (argc > 2) total_calls = atol(argv[2]);
  status = cubind_init();
  if (status == CUBIND_ERROR_NO_DRIVER || status == CUBIND_ERROR_NO_DEVICE) {
    printf("soak: skipped: no GPU: %s\n", cubind_last_error());
    return 77;
  }
  if (status != CUBIND_SUCCESS || (status = cubind_preload()) != CUBIND_SUCCESS) {
    fprintf(stderr, "soak: %s: %s\n", cubind_status_name(status), cubind_last_error());
    return 1;
  }
  for (s = 0; s < STREAMS; s++)
    if ((status = cubind_stream_create(&streams[s])) != CUBIND_SUCCESS) {
      fprintf(stderr, "soak: cubind_stream_create: %s\n", cubind_last_error());
      return 1;
    }
  open_driver();
  rss0 = host_rss();
  free0 = device_free();
  printf("soak: %ld launches and %ld _call round trips, %d threads, %d streams, n = %d\n",
         total_launches, total_calls, THREADS, STREAMS, N);
  printf("soak: start: host RSS %.1f MiB, device free %.1f MiB\n", rss0 / 1048576.0,
         free0 / 1048576.0);
  pthread_barrier_init(&warm, NULL, THREADS + 1);
  pthread_barrier_init(&sampled, NULL, THREADS + 1);
  start = now();
  for (t = 0; t < THREADS; t++) {
    memset(&workers[t], 0, sizeof workers[t]);
    workers[t].index = t;
    if (pthread_create(&threads[t], NULL, work, &workers[t]) != 0) {
      fprintf(stderr, "soak: pthread_create failed\n");
      return 1;
    }
  }
  pthread_barrier_wait(&warm);
  for (s = 0; s < STREAMS; s++)
    cubind_stream_synchronize(streams[s]);
  rss_warm = host_rss();
  free_warm = device_free();
  warm_time = now() - start;
  printf("soak: after warm-up (%.2f s): host RSS %.1f MiB, device free %.1f MiB\n", warm_time,
         rss_warm / 1048576.0, free_warm / 1048576.0);
  pthread_barrier_wait(&sampled);
  for (t = 0; t < THREADS; t++) {
    pthread_join(threads[t], NULL);
    launches += workers[t].launches;
    calls += workers[t].calls;
    checks += workers[t].checks;
  }
  end = now();
  cubind_synchronize();
  rss_end = host_rss();
  free_end = device_free();
  printf("soak: end (%.2f s): %ld launches (%.0f/s), %ld _call round trips, %ld result checks\n",
         end - start, launches, (double)launches / (end - start), calls, checks);
  printf("soak: end: host RSS %.1f MiB (%+.2f MiB since warm-up), device free %.1f MiB "
         "(%+.2f MiB since warm-up)\n",
         rss_end / 1048576.0, (rss_end - rss_warm) / 1048576.0, free_end / 1048576.0,
         (free_end - free_warm) / 1048576.0);
  for (s = 0; s < STREAMS; s++)
    cubind_stream_destroy(streams[s]);
  if (failed) {
    printf("soak: FAILED (results)\n");
    return 1;
  }
  if (launches != total_launches / THREADS * THREADS || calls != total_calls / THREADS * THREADS) {
    printf("soak: FAILED: %ld launches and %ld calls done, expected %ld and %ld\n", launches,
           calls, total_launches / THREADS * THREADS, total_calls / THREADS * THREADS);
    return 1;
  }
  if (rss_end - rss_warm > HOST_TOLERANCE || free_warm - free_end > DEVICE_TOLERANCE) {
    printf("soak: FAILED: memory not flat (tolerance %.0f MiB host, %.0f MiB device)\n",
           HOST_TOLERANCE / 1048576.0, DEVICE_TOLERANCE / 1048576.0);
    return 1;
  }
  printf("soak: passed: results exact, memory flat (within %.0f MiB host, %.0f MiB device)\n",
         HOST_TOLERANCE / 1048576.0, DEVICE_TOLERANCE / 1048576.0);
  return 0;
}
