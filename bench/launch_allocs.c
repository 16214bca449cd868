/*
 * launch_allocs: shows (rather than assumes) that a generated `<kernel>_launch` performs no heap
 * allocation once warm.
 *
 * This binary defines malloc, calloc, realloc, free (and the aligned variants) itself; they count
 * the calls (frees too) made on the measuring thread and forward to glibc's allocator (__libc_malloc & co.,
 * which, unlike dlsym(RTLD_NEXT), never allocate themselves). The executable exports them
 * (-rdynamic), so calls from libcubind and from the CUDA driver land here too: every allocation
 * on the launch path is counted, wherever it happens. Counting is per thread so that the
 * driver's own helper threads do not pollute the figure.
 *
 * After a warm-up, 100000 launches each of empty0 and empty16 through the stub, and the same
 * through raw cuLaunchKernel for reference, counting only around the launch loops (the periodic
 * stream syncs are outside). Prints the counts; exits 1 unless the stub's count is 0.
 *
 * Usage: launch_allocs [results.csv|results.json]
 */
#include "bench_common.h"
#include "bench_kernels.cubind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector_types.h> /* float4 */

extern const unsigned char cubind_fatbin_bench_kernels[];

/* ---- Counting allocator ---------------------------------------------------------------------- */

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t alignment, size_t size);

static __thread int counting;              /* only the measuring thread, only when asked */
static __thread unsigned long heap_calls; /* malloc, calloc, realloc, free, memalign, ... */

void *malloc(size_t size) {
  if (counting) heap_calls++;
  return __libc_malloc(size);
}
void *calloc(size_t n, size_t size) {
  if (counting) heap_calls++;
  return __libc_calloc(n, size);
}
void *realloc(void *p, size_t size) {
  if (counting) heap_calls++;
  return __libc_realloc(p, size);
}
void free(void *p) {
  if (counting) heap_calls++;
  __libc_free(p);
}
void *memalign(size_t alignment, size_t size);
void *memalign(size_t alignment, size_t size) {
  if (counting) heap_calls++;
  return __libc_memalign(alignment, size);
}
int posix_memalign(void **out, size_t alignment, size_t size) {
  if (counting) heap_calls++;
  void *p = __libc_memalign(alignment, size);
  if (!p) return 12; /* ENOMEM */
  *out = p;
  return 0;
}
void *aligned_alloc(size_t alignment, size_t size) {
  if (counting) heap_calls++;
  return __libc_memalign(alignment, size);
}

/* ---- Measurement ----------------------------------------------------------------------------- */

#define LAUNCHES 100000
#define CHUNK 500

static CUstream stream;

/* Runs LAUNCHES launches of `which` (0: stub empty0, 1: stub empty16, 2: raw empty0, 3: raw
   empty16) and returns the number of heap calls seen on this thread during the launches. */
static unsigned long count_launches(int which, CUfunction f0, CUfunction f16, void **args16) {
  cubind_config cfg = {{1, 1, 1}, {32, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  cfg.stream = stream;
  float4 v = {1.0f, 2.0f, 3.0f, 4.0f};
  unsigned long before = heap_calls;
  for (int done = 0; done < LAUNCHES; done += CHUNK) {
    counting = 1;
    for (int i = 0; i < CHUNK; i++) {
      cubind_status s = CUBIND_SUCCESS;
      CUresult r = CUDA_SUCCESS;
      switch (which) {
      case 0: s = empty0_launch(&cfg); break;
      case 1:
        s = empty16_launch(&cfg, NULL, NULL, NULL, NULL, 1, 2, 3u, 4LL, 5.0f, 6.0f, 7.0, v, 'c',
                           (short)9, (size_t)10, NULL);
        break;
      case 2: r = bench_cu.cuLaunchKernel(f0, 1, 1, 1, 32, 1, 1, 0, stream, NULL, NULL); break;
      default: r = bench_cu.cuLaunchKernel(f16, 1, 1, 1, 32, 1, 1, 0, stream, args16, NULL); break;
      }
      if (s != CUBIND_SUCCESS || r != CUDA_SUCCESS) {
        counting = 0;
        CHECK_CB(s);
        CHECK_CU(r);
      }
    }
    counting = 0;
    CHECK_CU(bench_cu.cuStreamSynchronize(stream));
  }
  return heap_calls - before;
}

int main(int argc, char **argv) {
  const char *out = argc > 1 ? argv[1] : NULL;
  bench_require_gpu();
  bench_driver_load();
  CHECK_CB(cubind_stream_create(&stream));

  /* Raw reference: same kernels, same fatbin bytes, in cubind's context. */
  cubind_config cfg = {{1, 1, 1}, {32, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  cfg.stream = stream;
  CHECK_CB(empty0_launch(&cfg));
  bench_driver_use_primary_context();
  CUfunction f0 = bench_driver_function(cubind_fatbin_bench_kernels, "empty0");
  CUfunction f16 = bench_driver_function(cubind_fatbin_bench_kernels, "empty16");
  void *p = NULL;
  int i0 = 1, i1 = 2;
  unsigned u0 = 3u;
  long long l0 = 4;
  float f0v = 5.0f, f1v = 6.0f;
  double d0 = 7.0;
  float4 v0 = {1.0f, 2.0f, 3.0f, 4.0f};
  char c0 = 'c';
  short s0 = 9;
  size_t z0 = 10;
  void *args16[] = {&p, &p, &p, &p, &i0, &i1, &u0, &l0, &f0v, &f1v, &d0, &v0, &c0, &s0, &z0, &p};

  static const char *const names[] = {"stub empty0", "stub empty16", "cuLaunchKernel empty0",
                                      "cuLaunchKernel empty16"};
  static const char *const cases[] = {"empty0", "empty16", "empty0", "empty16"};
  static const char *const variants[] = {"cubind_stub", "cubind_stub", "cuLaunchKernel",
                                         "cuLaunchKernel"};
  unsigned long counts[4];
  for (int w = 0; w < 4; w++) count_launches(w, f0, f16, args16); /* warm-up */
  for (int w = 0; w < 4; w++) counts[w] = count_launches(w, f0, f16, args16);

  printf("Heap calls (malloc, calloc, realloc, free, memalign) during %d launches (after warm-up), on the launching thread\n",
         LAUNCHES);
  for (int w = 0; w < 4; w++) {
    printf("  %-24s %lu\n", names[w], counts[w]);
    bench_result("launch_allocs", cases[w], variants[w], "heap_calls_per_100k_launches",
                 (double)counts[w], "count");
  }
  CHECK_CB(cubind_stream_destroy(stream));
  bench_write_results(out);
  if (counts[0] != 0 || counts[1] != 0) {
    printf("FAIL: the generated stub allocated on the launch path\n");
    return 1;
  }
  printf("PASS: zero heap allocations per stub launch\n");
  return 0;
}
