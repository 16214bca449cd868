// The shape of the CUDA samples' reduction: one kernel template over the element type, the
// block size and whether n is a power of two, instantiated only by the host code's dispatch
// switch; a device-wide cub::DeviceReduce call next to it (cub's own kernels come with it).
#include <cub/device/device_reduce.cuh>
#include <cubind/annotations.h>

template <class T> struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int smem[];
    return (T *)smem;
  }
};

/** Sums g_idata[0..n) into one value per block, g_odata[blockIdx.x] (two loads per thread). */
template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(const T *__restrict__ g_idata, T *__restrict__ g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int gridSize = blockSize * gridDim.x;
  T mySum = 0;
  if (nIsPow2) {
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    gridSize = gridSize << 1;
    while (i < n) {
      mySum += g_idata[i];
      if ((i + blockSize) < n) mySum += g_idata[i + blockSize];
      i += gridSize;
    }
  } else {
    unsigned int i = blockIdx.x * blockSize + threadIdx.x;
    while (i < n) {
      mySum += g_idata[i];
      i += gridSize;
    }
  }
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockSize / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

static bool isPow2(unsigned int x) { return (x & (x - 1)) == 0; }

template <class T>
void reduce(int size, int threads, int blocks, T *d_idata, T *d_odata) {
  dim3 dimBlock(threads, 1, 1);
  dim3 dimGrid(blocks, 1, 1);
  int smemSize = (threads <= 32) ? 2 * threads * sizeof(T) : threads * sizeof(T);
  if (isPow2(size)) {
    switch (threads) {
    case 512: reduce6<T, 512, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
    case 256: reduce6<T, 256, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
    case 128: reduce6<T, 128, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
    case 64: reduce6<T, 64, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
    }
  } else {
    switch (threads) {
    case 512: reduce6<T, 512, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
    case 256: reduce6<T, 256, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
    case 128: reduce6<T, 128, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
    case 64: reduce6<T, 64, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
    }
  }
}

template void reduce<int>(int size, int threads, int blocks, int *d_idata, int *d_odata);
template void reduce<float>(int size, int threads, int blocks, float *d_idata, float *d_odata);
template void reduce<double>(int size, int threads, int blocks, double *d_idata,
                             double *d_odata);

// The library route to the same sum: cub's kernels end up in this file's cubin too.
void reduce_with_cub(const float *in, float *out, int n, void *scratch, size_t &scratch_bytes) {
  cub::DeviceReduce::Sum(scratch, scratch_bytes, in, out, n);
}
