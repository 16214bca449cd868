/*
 * streams: two non-blocking streams, each with its own page-locked buffers, asynchronous copies
 * and launches queued on both before either is waited for; both results checked.
 */
#include "gpu_check.h"

#include "kernels.cubind.h"

enum { STREAMS = 2, N = 1 << 20 };

int main(void) {
  CUstream streams[STREAMS];
  float *x_host[STREAMS], *y_host[STREAMS], *want[STREAMS], a[STREAMS];
  void *x_gpu[STREAMS], *y_gpu[STREAMS];
  size_t bad = 0, i;
  int s;

  gpu_require_gpu("gpu_streams");
  gpu_seed("gpu_streams");
  for (s = 0; s < STREAMS; s++) {
    GPU_CHECK(cubind_stream_create(&streams[s]));
    GPU_CHECK(cubind_malloc_host((void **)&x_host[s], N * sizeof(float)));
    GPU_CHECK(cubind_malloc_host((void **)&y_host[s], N * sizeof(float)));
    GPU_CHECK(cubind_malloc(&x_gpu[s], N * sizeof(float)));
    GPU_CHECK(cubind_malloc(&y_gpu[s], N * sizeof(float)));
    want[s] = malloc(N * sizeof(float));
    if (!want[s]) return 1;
    a[s] = (float)(s + 2); /* small integers: a*x + y is exact, FMA or not */
    for (i = 0; i < N; i++) {
      x_host[s][i] = (float)((int)(gpu_rand_u32() % 2001) - 1000);
      y_host[s][i] = (float)((int)(gpu_rand_u32() % 2001) - 1000);
      want[s][i] = a[s] * x_host[s][i] + y_host[s][i];
    }
  }

  for (s = 0; s < STREAMS; s++) {
    cubind_config cfg = cubind_config_1d(N, 256);
    cfg.stream = streams[s];
    GPU_CHECK(cubind_to_device_async(x_gpu[s], x_host[s], N * sizeof(float), streams[s]));
    GPU_CHECK(cubind_to_device_async(y_gpu[s], y_host[s], N * sizeof(float), streams[s]));
    GPU_CHECK(axpy_float_launch(&cfg, a[s], (const float *)x_gpu[s], (float *)y_gpu[s], N));
  }
  /* Both streams have work queued. The host inputs may be overwritten only once their copies
     are done, so wait, then poison them and copy the results back into them. */
  for (s = 0; s < STREAMS; s++) GPU_CHECK(cubind_stream_synchronize(streams[s]));
  for (s = 0; s < STREAMS; s++) {
    gpu_poison(y_host[s], N * sizeof(float));
    GPU_CHECK(cubind_from_device_async(y_host[s], y_gpu[s], N * sizeof(float), streams[s]));
  }
  for (s = 0; s < STREAMS; s++) {
    char what[32];
    GPU_CHECK(cubind_stream_synchronize(streams[s]));
    sprintf(what, "stream %d", s);
    bad += gpu_compare_floats(what, y_host[s], want[s], N, 0);
    GPU_CHECK(cubind_free(x_gpu[s]));
    GPU_CHECK(cubind_free(y_gpu[s]));
    GPU_CHECK(cubind_free_host(x_host[s]));
    GPU_CHECK(cubind_free_host(y_host[s]));
    GPU_CHECK(cubind_stream_destroy(streams[s]));
    free(want[s]);
  }
  return gpu_finish("gpu_streams", bad);
}
