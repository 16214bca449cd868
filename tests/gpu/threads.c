/*
 * threads: 16 threads of a fresh process make their first cubind call at the same moment (the
 * driver, the context and the module load race), each then runs axpy_int_call on its own
 * random data several times; every result is checked.
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
  return gpu_finish("gpu_threads", bad);
}
