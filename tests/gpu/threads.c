/*
 * threads: 16 threads of a fresh process make their first cubind call at the same moment (the
 * driver, the context and the module load race), each then runs axpy_int_call on its own
 * random data several times; every result is checked. Then 8 threads run it on one shared 16 MiB
 * x (the weights each thread reads) and their own y, pageable: registered in place by the calls
 * that find the staging threads busy, shared between them and unregistered by the last one.
 */
#include "gpu_check.h"

#include <pthread.h>

#include "kernels.cubind.h"

enum { THREADS = 16, N = 4096, ROUNDS = 20 };

typedef struct worker {
  pthread_t thread;
  unsigned index;
  size_t bad;
  int x[N], y[N];
} worker;

static pthread_barrier_t start_line;

static void *work(void *arg) {
  worker *w = arg;
  cubind_config cfg = cubind_config_1d(N, 256);
  int a = (int)w->index + 2, round, i;
  pthread_barrier_wait(&start_line);
  for (round = 0; round < ROUNDS; round++) {
    int got[N];
    cubind_status status;
    memcpy(got, w->y, sizeof got);
    status = axpy_int_call(&cfg, a, w->x, got, N);
    if (status != CUBIND_SUCCESS) {
      fprintf(stderr, "thread %u round %d: axpy_int_call: %s: %s\n", w->index, round,
              cubind_status_name(status), cubind_last_error());
      w->bad++;
      break;
    }
    for (i = 0; i < N; i++)
      if (got[i] != a * w->x[i] + w->y[i]) w->bad++;
  }
  cubind_release_scratch();
  return NULL;
}

enum { SHARED_THREADS = 8, SHARED_N = 4 << 20, SHARED_ROUNDS = 3 };

typedef struct shared_worker {
  pthread_t thread;
  unsigned index;
  size_t bad;
} shared_worker;

static int *shared_x; /* SHARED_N elements every thread copies in */

static void *work_shared(void *arg) {
  shared_worker *w = arg;
  cubind_config cfg = cubind_config_1d(SHARED_N, 256);
  int a = (int)w->index + 3, round, i;
  int *y = malloc(SHARED_N * sizeof *y);
  if (!y) {
    w->bad++;
    return NULL;
  }
  pthread_barrier_wait(&start_line);
  for (round = 0; round < SHARED_ROUNDS && !w->bad; round++) {
    cubind_status status;
    for (i = 0; i < SHARED_N; i++) y[i] = i % 1013 - (int)w->index;
    status = axpy_int_call(&cfg, a, shared_x, y, SHARED_N);
    if (status != CUBIND_SUCCESS) {
      fprintf(stderr, "shared buffer, thread %u round %d: axpy_int_call: %s: %s\n", w->index,
              round, cubind_status_name(status), cubind_last_error());
      w->bad++;
      break;
    }
    for (i = 0; i < SHARED_N; i++)
      if (y[i] != a * shared_x[i] + i % 1013 - (int)w->index) w->bad++;
  }
  free(y);
  cubind_release_scratch();
  return NULL;
}

/* The shared-buffer phase: mismatches and failures over all threads. */
static size_t shared_buffer_phase(void) {
  static shared_worker workers[SHARED_THREADS];
  size_t bad = 0;
  unsigned t;
  int i;
  if (!(shared_x = malloc(SHARED_N * sizeof *shared_x))) return 1;
  for (i = 0; i < SHARED_N; i++) shared_x[i] = (int)(gpu_rand_u32() % 2001) - 1000;
  pthread_barrier_init(&start_line, NULL, SHARED_THREADS);
  for (t = 0; t < SHARED_THREADS; t++) {
    workers[t].index = t;
    if (pthread_create(&workers[t].thread, NULL, work_shared, &workers[t]) != 0) {
      fprintf(stderr, "gpu_threads: pthread_create failed\n");
      return 1;
    }
  }
  for (t = 0; t < SHARED_THREADS; t++) pthread_join(workers[t].thread, NULL);
  pthread_barrier_destroy(&start_line);
  for (t = 0; t < SHARED_THREADS; t++) {
    if (workers[t].bad) fprintf(stderr, "shared buffer, thread %u: %zu mismatches\n", t,
                                workers[t].bad);
    bad += workers[t].bad;
  }
  free(shared_x);
  return bad;
}

int main(void) {
  static worker workers[THREADS];
  size_t bad = 0;
  unsigned t;
  int i;

  /* No cubind call before the threads start: they race for the first one. The skip check
     comes after, in the main thread. */
  gpu_seed("gpu_threads");
  pthread_barrier_init(&start_line, NULL, THREADS);
  for (t = 0; t < THREADS; t++) {
    workers[t].index = t;
    for (i = 0; i < N; i++) {
      workers[t].x[i] = (int)(gpu_rand_u32() % 2001) - 1000;
      workers[t].y[i] = (int)(gpu_rand_u32() % 2001) - 1000;
    }
  }
  for (t = 0; t < THREADS; t++)
    if (pthread_create(&workers[t].thread, NULL, work, &workers[t]) != 0) {
      fprintf(stderr, "gpu_threads: pthread_create failed\n");
      return 1;
    }
  for (t = 0; t < THREADS; t++) pthread_join(workers[t].thread, NULL);
  pthread_barrier_destroy(&start_line);

  gpu_require_gpu("gpu_threads"); /* no GPU: the workers' failures above were expected */
  for (t = 0; t < THREADS; t++) {
    if (workers[t].bad) fprintf(stderr, "thread %u: %zu mismatches\n", t, workers[t].bad);
    bad += workers[t].bad;
  }
  bad += shared_buffer_phase();
  return gpu_finish("gpu_threads", bad);
}
