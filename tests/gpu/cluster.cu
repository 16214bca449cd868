// Thread block clusters (sm_90): one kernel clustered by the launch (cfg.cluster), one by its
// own __cluster_dims__; each block reports its rank in the cluster and reads its neighbour's
// shared memory (distributed shared memory).
#include <cubind/annotations.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__device__ void report(int *ranks, int *peer, int n) {
  __shared__ int mine;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) mine = (int)blockIdx.x;
  cluster.sync();
  if (threadIdx.x == 0 && (int)blockIdx.x < n) {
    unsigned rank = cluster.block_rank();
    unsigned other = (rank + 1) % cluster.num_blocks();
    int *remote = cluster.map_shared_rank(&mine, other);
    ranks[blockIdx.x] = (int)rank;
    peer[blockIdx.x] = *remote;
  }
  cluster.sync(); /* keep this block's shared memory alive until its peer has read it */
}

/** ranks[b]: block b's rank in its cluster; peer[b]: the next rank's blockIdx.x (n = blocks). */
extern "C" __global__ void cluster_ranks(CUBIND_OUT_N(n) int *ranks, CUBIND_OUT_N(n) int *peer,
                                         int n) {
  report(ranks, peer, n);
}

/** The same, with a compile-time cluster of 2 blocks. */
extern "C" __global__ void __cluster_dims__(2, 1, 1)
    fixed_cluster_ranks(CUBIND_OUT_N(n) int *ranks, CUBIND_OUT_N(n) int *peer, int n) {
  report(ranks, peer, n);
}
