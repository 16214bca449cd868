// 100 KiB of dynamic shared memory per block: above the 48 KiB default, so the runtime's
// per-kernel opt-in (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) must have been raised.
#include <cubind/annotations.h>

/** Reverses each tile of `tile` elements (n a multiple of tile) through shared memory. */
extern "C" __global__ void tile_reverse(CUBIND_IN_N(n) const float *in,
                                        CUBIND_OUT_N(n) float *out, int n, int tile) {
  extern __shared__ float buf[];
  int base = blockIdx.x * tile;
  for (int j = threadIdx.x; j < tile; j += blockDim.x)
    buf[j] = base + j < n ? in[base + j] : 0.0f;
  __syncthreads();
  for (int j = threadIdx.x; j < tile; j += blockDim.x)
    if (base + j < n) out[base + j] = buf[tile - 1 - j];
}
