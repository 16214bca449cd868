/*
 * multi_gpu: every GPU of the machine runs a kernel on its own data. One thread per device
 * selects it (cubind_set_device), so the module is loaded once on each device, and each device's
 * results are checked: device pointers from cubind_malloc on one device and `_call` host buffers.
 * With fewer than two GPUs it says "skipped: needs 2 GPUs" and exits 77.
 */
#include "gpu_check.h"

#include <pthread.h>

#include "kernels.cubind.h"

enum { MAX_DEVICES = 16, N = 1 << 16 };

/* Counts elements farther than 1e-4 from the reference, printing the first few. */
static size_t count_mismatches(const char *what, int ordinal, const float *got, const float *want) {
  size_t bad = 0;
  int i;
  for (i = 0; i < N; i++)
    if (!(fabsf(got[i] - want[i]) <= 1e-4f) && bad++ < 5)
      fprintf(stderr, "device %d %s[%d]: got %.9g, want %.9g\n", ordinal, what, i, got[i], want[i]);
  return bad;
}

typedef struct device_run {
  pthread_t thread;
  int ordinal;
  size_t bad;
  float x[N], y[N], want[N], got[N];
} device_run;

static void *run_on_device(void *arg) {
  device_run *d = arg;
  cubind_config cfg = cubind_config_1d(N, 256);
  const float a = 1.5f + (float)d->ordinal;
  void *x_dev = NULL, *y_dev = NULL;
  int current = -1, i;

  GPU_CHECK(cubind_set_device(d->ordinal));
  GPU_CHECK(cubind_get_device(&current));
  if (current != d->ordinal) {
    fprintf(stderr, "device %d: cubind_get_device says %d\n", d->ordinal, current);
    d->bad++;
    return NULL;
  }
  /* |a*x| <= 66 and |y| <= 4 (a <= 16.5 for up to 16 devices), so results lie below 128, where
     a float's ulp is 2^-16. The GPU rounds a*x + y once (FMA) or twice, the reference once (the
     product is exact in double): within 2 ulps, so 1e-4 absolute. */
  for (i = 0; i < N; i++) d->want[i] = (float)((double)a * d->x[i] + d->y[i]);

  /* Device pointers on this device, through _launch. */
  GPU_CHECK(cubind_malloc(&x_dev, sizeof d->x));
  GPU_CHECK(cubind_malloc(&y_dev, sizeof d->y));
  GPU_CHECK(cubind_to_device(x_dev, d->x, sizeof d->x));
  GPU_CHECK(cubind_to_device(y_dev, d->y, sizeof d->y));
  GPU_CHECK(axpy_float_launch(&cfg, a, (const float *)x_dev, (float *)y_dev, N));
  gpu_poison(d->got, sizeof d->got);
  GPU_CHECK(cubind_from_device(d->got, y_dev, sizeof d->got));
  d->bad += count_mismatches("launch", d->ordinal, d->got, d->want);
  GPU_CHECK(cubind_free(x_dev));
  GPU_CHECK(cubind_free(y_dev));

  /* Host buffers through _call: scratch memory on this device. */
  memcpy(d->got, d->y, sizeof d->got);
  GPU_CHECK(axpy_float_call(&cfg, a, d->x, d->got, N));
  d->bad += count_mismatches("call", d->ordinal, d->got, d->want);
  GPU_CHECK(cubind_release_scratch());
  printf("device %d: %s\n", d->ordinal, d->bad ? "mismatches" : "results match");
  return NULL;
}

int main(void) {
  static device_run runs[MAX_DEVICES];
  int count = 0, d, i;
  size_t bad = 0;

  gpu_require_gpu("gpu_multi_gpu");
  GPU_CHECK(cubind_device_count(&count));
  if (count < 2) {
    printf("gpu_multi_gpu: skipped: needs 2 GPUs, this machine has %d\n", count);
    return GPU_SKIP;
  }
  if (count > MAX_DEVICES) count = MAX_DEVICES;
  gpu_seed("gpu_multi_gpu");
  for (d = 0; d < count; d++) {
    runs[d].ordinal = d;
    for (i = 0; i < N; i++) {
      runs[d].x[i] = gpu_rand_float(-4.0f, 4.0f);
      runs[d].y[i] = gpu_rand_float(-4.0f, 4.0f);
    }
  }
  for (d = 0; d < count; d++)
    if (pthread_create(&runs[d].thread, NULL, run_on_device, &runs[d]) != 0) {
      fprintf(stderr, "gpu_multi_gpu: pthread_create failed\n");
      return 1;
    }
  for (d = 0; d < count; d++) {
    pthread_join(runs[d].thread, NULL);
    bad += runs[d].bad;
  }
  printf("gpu_multi_gpu: %d devices\n", count);
  return gpu_finish("gpu_multi_gpu", bad);
}
