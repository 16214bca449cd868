/*
 * bench_kernels.cu: the kernels the benchmarks launch through cubind's generated stubs.
 *
 * The empty kernels measure pure launch cost: their bodies do nothing, so the time is the host
 * side of the launch (and, for the latency test, the GPU's launch-to-completion round trip).
 * They differ only in the number and kind of parameters, because packing the parameter buffer
 * is the one part of a launch that grows with the signature.
 *
 * inout_add1 is the kernel behind the transfer benchmark: a[i] += 1 over the whole buffer, so
 * every byte copied in is read and every byte copied out was written (and can be checked).
 */
#include <cubind/annotations.h>
#include <stddef.h>

/** No parameters: the floor of a launch. */
extern "C" __global__ void empty0(void) {}

/** Four parameters: two pointers, two scalars. */
extern "C" __global__ void empty4(float *a, const int *b, int n, float s) {
  (void)a, (void)b, (void)n, (void)s;
}

/** Sixteen parameters of mixed size and alignment (1 to 16 bytes), including a float4. */
extern "C" __global__ void empty16(float *p0, const float *p1, int *p2, const double *p3,
                                   int i0, int i1, unsigned u0, long long l0, float f0,
                                   float f1, double d0, float4 v0, char c0, short s0,
                                   size_t z0, unsigned char *p4) {
  (void)p0, (void)p1, (void)p2, (void)p3, (void)i0, (void)i1, (void)u0, (void)l0;
  (void)f0, (void)f1, (void)d0, (void)v0, (void)c0, (void)s0, (void)z0, (void)p4;
}

/** Adds 1 to each of the n elements of a (grid-stride loop, so any grid covers any n). */
extern "C" __global__ void inout_add1(CUBIND_INOUT_N(n) float *a, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    a[i] += 1.0f;
}
