// What real kernels take and how real files are written (NVIDIA's samples, training code):
// static kernels, an anonymous namespace, the runtime's structs by value, texture and surface
// objects, __half2, tag types, functions as template arguments, kernels and instantiations
// written by macros, instantiations behind an #if 0, a declared-only kernel, a device function
// pointer variable.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <type_traits>

/** Copies a 3D pitched block: the samples' cudaExtent / cudaPitchedPtr by value. */
static __global__ void copy3d(cudaPitchedPtr dst, cudaPitchedPtr src, cudaExtent extent) {
  size_t x = blockIdx.x * blockDim.x + threadIdx.x;
  for (size_t z = 0; z < extent.depth; z++)
    for (size_t y = 0; y < extent.height; y++)
      if (x < extent.width)
        ((char *)dst.ptr)[z * dst.pitch * dst.ysize + y * dst.pitch + x] =
            ((const char *)src.ptr)[z * src.pitch * src.ysize + y * src.pitch + x];
}

/** dim3 and uint3 by value. */
__global__ void dims(dim3 grid, uint3 block, unsigned *out) {
  out[0] = grid.x * grid.y * grid.z;
  out[1] = block.x * block.y * block.z;
}

/** Reads a texture, writes a surface. */
__global__ void tex_to_surf(cudaTextureObject_t tex, cudaSurfaceObject_t surf, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    surf2Dwrite(tex2D<float>(tex, x, y), surf, x * (int)sizeof(float), y);
}

/** __half2 by value. */
__global__ void scale_half2(__half2 s, __half2 *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = __hmul2(x[i], s);
}

namespace {
/** In an anonymous namespace: nvcc names it after this file's path. */
__global__ void private_kernel(int *x) { x[0] = 42; }
}

/** A tag type as a parameter: C passes nothing for it. */
template <int N>
__global__ void unrolled(std::integral_constant<int, N>, float *out) { out[0] = N; }

__device__ float twice(float v) { return 2 * v; }
__device__ float thrice(float v) { return 3 * v; }
typedef float (*unary_fn)(float);
/** A function as a template argument. */
template <unary_fn F>
__global__ void map(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = F(in[i]);
}

#define DEFINE_FILL(name, T)                                                                    \
  __global__ void name(T *out, T v, int n) {                                                    \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                              \
    if (i < n)                                                                                  \
      out[i] = v;                                                                               \
  }
DEFINE_FILL(fill_f32, float)
DEFINE_FILL(fill_i32, int)

template <typename T> __global__ void negate(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = -x[i];
}
#define INSTANTIATE_NEGATE(T) template __global__ void negate<T>(T *, int);
INSTANTIATE_NEGATE(float)
INSTANTIATE_NEGATE(double)
#if 0
template __global__ void negate<short>(short *, int); // not compiled: no stubs
#endif

/** Declared only: its definition is in another file. */
__global__ void elsewhere(float *out);

/** A device function pointer variable: copied as a void * (a device address C passes on). */
__device__ unary_fn selected = twice;

/** v[i] = f(v[i]) through a device function pointer (`selected`'s value): void *f in C. */
__global__ void apply_selected(float *v, unary_fn f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = f(v[i]);
}

void launch_all(float *f, int *i, cudaTextureObject_t t, cudaSurfaceObject_t s) {
  cudaPitchedPtr p = make_cudaPitchedPtr(f, 64, 16, 4);
  copy3d<<<1, 64>>>(p, p, make_cudaExtent(16, 4, 2));
  private_kernel<<<1, 1>>>(i);
  unrolled<<<1, 1>>>(std::integral_constant<int, 4>(), f);
  map<twice><<<1, 32>>>(f, f, 32);
  map<&thrice><<<1, 32>>>(f, f, 32);
  tex_to_surf<<<1, 1>>>(t, s, 1, 1);
}
