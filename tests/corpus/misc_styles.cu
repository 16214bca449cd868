// Assorted real-world shapes: vector types, unsigned and 64-bit indices, enums, const scalars,
// structs by pointer, unnamed parameters, default-argument-free overload-free C++ kernels, and
// an `extern "C"` block.
#include <stdint.h>
#include <cuda_fp16.h>
#include <cubind/annotations.h>

struct Particle { float4 pos; float4 vel; };
enum Mode { MODE_CLAMP = 0, MODE_WRAP = 1 };

/** N-body-style integration step over an array of structs (passed by pointer). */
__global__ void integrate(Particle *__restrict__ p, const float dt, const int64_t n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  p[i].pos.x += p[i].vel.x * dt; p[i].pos.y += p[i].vel.y * dt; p[i].pos.z += p[i].vel.z * dt;
}

/** Image-style kernel: uchar4 pixels, 2D grid, an enum for the border mode. */
__global__ void box_blur(uchar4 *out, const uchar4 *in, int width, int height, Mode mode) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  int4 acc = make_int4(0, 0, 0, 0);
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
      int xx = x + dx, yy = y + dy;
      if (mode == MODE_CLAMP) { xx = min(max(xx, 0), width - 1); yy = min(max(yy, 0), height - 1); }
      else { xx = (xx + width) % width; yy = (yy + height) % height; }
      uchar4 p = in[yy * width + xx];
      acc.x += p.x; acc.y += p.y; acc.z += p.z; acc.w += p.w;
    }
  out[y * width + x] = make_uchar4(acc.x / 9, acc.y / 9, acc.z / 9, acc.w / 9);
}

extern "C" {
/** Fill with a value; the second parameter is unnamed in the declaration. */
__global__ void fill_u32(unsigned *out, unsigned, size_t n);
__global__ void fill_u32(unsigned *out, unsigned value, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

/** Half-precision GELU (tanh approximation), host buffers. */
__global__ void gelu_f16(CUBIND_INOUT_N(n) __half *x, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = __half2float(x[i]);
  x[i] = __float2half(0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v))));
}
}

/// A kernel with a double2 and a bool parameter. Conjugate first??/
/// (the line above ends in a C99 trigraph: the header must not splice the prototype into it)

__global__ void complex_scale(double2 *z, double2 a, bool conjugate, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double2 v = z[i];
  if (conjugate) v.y = -v.y;
  z[i] = make_double2(v.x * a.x - v.y * a.y, v.x * a.y + v.y * a.x);
}
