/*
 * Example 8, from the ElementwiseKernel walk-through: a = (a*10+2) * ((b+2)*10-5) * 5 on
 * 2^10 ... 2^24 floats, GPU (kernel time, cubind_timer) against CPU, with the largest relative
 * difference between the two. The kernel is CUBIND_ELEMENTWISE (elementwise.cu): cubind picks
 * its launch shape (cfg NULL), and it runs on the legacy default stream, the stream the timer
 * records on.
 */
#include "example_check.h"

#include "elementwise.cubind.h"

enum { MIN_LOG2 = 10, MAX_LOG2 = 24 };

/*
 * Tolerance: with a and b in [0, 1), (a*10+2) is in [2, 12) and ((b+2)*10-5) in [15, 25): no
 * cancellation anywhere, so each side is within 7 roundings (7 * 2^-24 relative) of the exact
 * value, and the two sides (nvcc fuses a*10+2 into one FMA, the C compiler may not) within
 * 14 * 2^-24 = 8.3e-7 of each other.
 */
#define TOLERANCE 1e-6

static void cpu_elementwise(float *a, const float *b, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) a[i] = (a[i] * 10 + 2) * ((b[i] + 2) * 10 - 5) * 5;
}

int main(void) {
  const size_t max_n = (size_t)1 << MAX_LOG2;
  float *a = malloc(max_n * sizeof *a), *b = malloc(max_n * sizeof *b);
  float *gpu_result = malloc(max_n * sizeof *gpu_result);
  float *cpu_result = malloc(max_n * sizeof *cpu_result);
  void *a_gpu = NULL, *b_gpu = NULL;
  cubind_timer timer = {0};
  size_t bad = 0;
  int log2n;

  example_require_gpu("elementwise");
  example_seed("elementwise");
  if (!a || !b || !gpu_result || !cpu_result) {
    fprintf(stderr, "elementwise: out of host memory\n");
    return 1;
  }
  example_fill_random(a, max_n, 0.0f, 1.0f);
  example_fill_random(b, max_n, 0.0f, 1.0f);
  EXAMPLE_CHECK(cubind_malloc(&a_gpu, max_n * sizeof *a));
  EXAMPLE_CHECK(cubind_malloc(&b_gpu, max_n * sizeof *b));
  EXAMPLE_CHECK(cubind_timer_create(&timer));
  EXAMPLE_CHECK(cubind_preload()); /* load the kernel now, so that the timing leaves loading out */
  /* One launch before timing: the kernel is resolved, and its launch shape for cfg NULL worked
     out, at its first launch on a device. */
  EXAMPLE_CHECK(cubind_to_device(a_gpu, a, ((size_t)1 << MIN_LOG2) * sizeof *a));
  EXAMPLE_CHECK(cubind_to_device(b_gpu, b, ((size_t)1 << MIN_LOG2) * sizeof *b));
  EXAMPLE_CHECK(
      elementwise_launch(NULL, (float *)a_gpu, (const float *)b_gpu, (size_t)1 << MIN_LOG2));

  printf("%10s %12s %12s %9s %14s\n", "n", "GPU ms", "CPU ms", "speedup", "max rel diff");
  for (log2n = MIN_LOG2; log2n <= MAX_LOG2; log2n++) {
    const size_t n = (size_t)1 << log2n;
    float gpu_ms;
    double cpu_ms, diff;

    EXAMPLE_CHECK(cubind_to_device(a_gpu, a, n * sizeof *a));
    EXAMPLE_CHECK(cubind_to_device(b_gpu, b, n * sizeof *b));
    /* cfg NULL: cubind's launch shape on the legacy default stream (stream 0), timed there. A
       launch on another stream passes a cfg with that stream (and a grid: any grid covers n)
       and starts the timer on the same stream. */
    EXAMPLE_CHECK(cubind_timer_start(&timer, NULL));
    EXAMPLE_CHECK(elementwise_launch(NULL, (float *)a_gpu, (const float *)b_gpu, n));
    EXAMPLE_CHECK(cubind_timer_stop(&timer, &gpu_ms));
    example_poison(gpu_result, n * sizeof *gpu_result);
    EXAMPLE_CHECK(cubind_from_device(gpu_result, a_gpu, n * sizeof *gpu_result));

    memcpy(cpu_result, a, n * sizeof *a);
    cpu_ms = example_now_ms();
    cpu_elementwise(cpu_result, b, n);
    cpu_ms = example_now_ms() - cpu_ms;

    diff = example_max_rel_diff(gpu_result, cpu_result, n);
    printf("%10zu %12.4f %12.4f %9.1f %14.3g\n", n, (double)gpu_ms, cpu_ms,
           cpu_ms / (double)gpu_ms, diff);
    if (!(diff <= TOLERANCE)) {
      example_compare_floats("a", gpu_result, cpu_result, n, TOLERANCE);
      bad++;
    }
  }

  EXAMPLE_CHECK(cubind_timer_destroy(&timer));
  EXAMPLE_CHECK(cubind_free(a_gpu));
  EXAMPLE_CHECK(cubind_free(b_gpu));
  free(a);
  free(b);
  free(gpu_result);
  free(cpu_result);
  return example_finish("elementwise", bad);
}
