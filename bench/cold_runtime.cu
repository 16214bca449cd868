/*
 * cold_runtime: the cold-start program written the usual CUDA way (runtime API + <<<>>>), the
 * reference for cold_cubind.c: same kernel, same data, same check, same output line.
 * Exit status: 0 correct, 1 wrong or a failure (message on stderr), 77 no GPU.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

#define CHECK(call)                                                                         \
  do {                                                                                      \
    cudaError_t e_ = (call);                                                                \
    if (e_ != cudaSuccess) {                                                                \
      fprintf(stderr, "%s:%d: error: %s failed: %s: %s\n", __FILE__, __LINE__, #call,       \
              cudaGetErrorName(e_), cudaGetErrorString(e_));                                \
      exit(1);                                                                              \
    }                                                                                       \
  } while (0)

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void) {
  long long t0 = now_ns();
  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);
  float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
  if (!a || !b || !c) {
    fprintf(stderr, "out of host memory\n");
    return 1;
  }
  for (int i = 0; i < n; i++) a[i] = (float)i, b[i] = (float)(2 * (i % 4096)), c[i] = -1.0f;

  float *da, *db, *dc;
  cudaError_t e = cudaMalloc(&da, bytes);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
    printf("skipped: no GPU (%s)\n", cudaGetErrorName(e));
    return 77;
  }
  CHECK(e);
  CHECK(cudaMalloc(&db, bytes));
  CHECK(cudaMalloc(&dc, bytes));
  CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
  vadd<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    if (c[i] != a[i] + b[i]) {
      fprintf(stderr, "c[%d] = %g, expected %g\n", i, (double)c[i], (double)(a[i] + b[i]));
      return 1;
    }
  long long t1 = now_ns();
  printf("ok main_to_result_us %.1f\n", (double)(t1 - t0) / 1000.0);
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  free(a), free(b), free(c);
  return 0;
}
