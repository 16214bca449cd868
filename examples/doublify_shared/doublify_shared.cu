// doublify through shared memory: the block stages the array in on-chip shared memory, waits
// for every thread, then writes the doubled values back.
#include <cubind/annotations.h>

extern "C" __global__ void doublify_shared(CUBIND_INOUT float *a)
{
  __shared__ float tile[16];
  int idx = threadIdx.x + threadIdx.y * 4;
  tile[idx] = a[idx];
  __syncthreads();
  a[idx] = 2 * tile[idx];
}

// The same with dynamic shared memory: its size comes from the launch (cubind_config's
// shared_bytes, PyCUDA's shared= argument), and each thread reads its neighbour's element to
// show that the tile really is shared.
extern "C" __global__ void doublify_dynamic_shared(CUBIND_INOUT float *a)
{
  extern __shared__ float tile[];
  int n = blockDim.x * blockDim.y;
  int idx = threadIdx.x + threadIdx.y * blockDim.x;
  tile[idx] = a[idx];
  __syncthreads();
  a[idx] = 2 * tile[(idx + 1) % n];
}
