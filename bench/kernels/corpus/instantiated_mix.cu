// Random samples summed per block with CUB and per tile with cooperative groups: a template
// over the item type and block size, explicitly instantiated; curand, cooperative groups and CUB
// together, a mix no installed prelude holds.
#include <curand_kernel.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/cub.cuh>
namespace cg = cooperative_groups;
template <class T, int BLOCK>
__global__ void sample_sum(T *out, unsigned long long seed, int n) {
  curandStatePhilox4_32_10_t state;
  curand_init(seed, blockIdx.x * BLOCK + threadIdx.x, 0, &state);
  typedef cub::BlockReduce<T, BLOCK> Reduce;
  __shared__ typename Reduce::TempStorage tmp;
  T v = (T)curand_uniform(&state);
  T s = Reduce(tmp).Sum(v);
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  T t = cg::reduce(tile, v, cg::plus<T>());
  if (threadIdx.x == 0) out[blockIdx.x] = s + t;
}
template __global__ void sample_sum<float, 128>(float *, unsigned long long, int);
template __global__ void sample_sum<double, 256>(double *, unsigned long long, int);
