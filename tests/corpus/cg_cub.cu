// Cooperative groups and CUB block primitives from the toolkit, in namespaces.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cubind/annotations.h>

namespace cg = cooperative_groups;

namespace ops {
namespace cub_based {

/** Block sums with cub::BlockReduce (256 threads). */
__global__ void block_sum(CUBIND_IN_N(n) const float *in, CUBIND_OUT_N(blocks) float *out, int n,
                          int blocks) {
  typedef cub::BlockReduce<float, 256> BlockReduce;
  __shared__ typename BlockReduce::TempStorage temp;
  int i = blockIdx.x * 256 + threadIdx.x;
  float v = i < n ? in[i] : 0.f;
  float s = BlockReduce(temp).Sum(v);
  if (threadIdx.x == 0 && blockIdx.x < blocks) out[blockIdx.x] = s;
}

/** Exclusive prefix sums of each 128-element block with cub::BlockScan. */
__global__ void block_exclusive_scan(const int *__restrict__ in, int *__restrict__ out, int n) {
  typedef cub::BlockScan<int, 128> BlockScan;
  __shared__ typename BlockScan::TempStorage temp;
  int i = blockIdx.x * 128 + threadIdx.x;
  int v = i < n ? in[i] : 0, r;
  BlockScan(temp).ExclusiveSum(v, r);
  if (i < n) out[i] = r;
}

struct MaxOp {
  __device__ float operator()(float a, float b) const { return a > b ? a : b; }
};

/** A templated CUB reduction, explicitly instantiated for two block sizes. */
template <int BLOCK>
__global__ void block_max(const float *__restrict__ in, float *__restrict__ out, int n) {
  typedef cub::BlockReduce<float, BLOCK> BlockReduce;
  __shared__ typename BlockReduce::TempStorage temp;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  float m = BlockReduce(temp).Reduce(i < n ? in[i] : -1e30f, MaxOp());
  if (threadIdx.x == 0) out[blockIdx.x] = m;
}
template __global__ void block_max<128>(const float *, float *, int);
template __global__ void block_max<512>(const float *, float *, int);

}  // namespace cub_based

namespace cg_based {

/** Warp-tile reductions with cooperative_groups::reduce. */
__global__ void tile_sum(const float *__restrict__ in, float *__restrict__ out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int i = block.group_index().x * block.size() + block.thread_rank();
  float v = i < n ? in[i] : 0.f;
  float s = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0) atomicAdd(out, s);
}

/** A grid-wide sync (cooperative launch): two phases over the data. */
__global__ void two_phase_grid_sync(float *data, float *scratch, int n) {
  cg::grid_group grid = cg::this_grid();
  for (int i = grid.thread_rank(); i < n; i += grid.size()) scratch[i] = data[i] * 2.f;
  grid.sync();
  for (int i = grid.thread_rank(); i < n; i += grid.size()) data[i] = scratch[(i + 1) % n];
}

}  // namespace cg_based
}  // namespace ops
