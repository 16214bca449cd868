/*
 * cluster: thread block clusters on sm_90+. cluster_ranks launched with cfg.cluster = {2,1,1}
 * and {4,1,1}, fixed_cluster_ranks (__cluster_dims__(2,1,1)) with a plain config; each block's
 * cluster rank and its neighbour's blockIdx (read through distributed shared memory) checked
 * against the CPU. Refused configurations: a grid that is not a multiple of the cluster, and a
 * cluster that contradicts __cluster_dims__. Skips (77) on a GPU older than sm_90.
 */
#include "gpu_check.h"

#include "cluster.cubind.h"

enum { BLOCKS = 16 };

/* Exits 77 when the fatbin (sm_90 only) has no code for this GPU. */
static void skip_without_sm90(cubind_status status) {
  if (status == CUBIND_ERROR_MODULE_LOAD && strstr(cubind_last_error(), "no code for")) {
    printf("gpu_cluster: skipped: needs sm_90 or newer: %s\n", cubind_last_error());
    exit(GPU_SKIP);
  }
}

static size_t check(const char *what, const int *ranks, const int *peer, int cluster) {
  size_t bad = 0;
  int b;
  for (b = 0; b < BLOCKS; b++) {
    int rank = b % cluster, want_peer = b - rank + (rank + 1) % cluster;
    if (ranks[b] != rank || peer[b] != want_peer) {
      if (bad < 5)
        fprintf(stderr, "%s: block %d: rank %d peer %d, want rank %d peer %d\n", what, b,
                ranks[b], peer[b], rank, want_peer);
      bad++;
    }
  }
  return bad;
}

int main(void) {
  int ranks[BLOCKS], peer[BLOCKS];
  cubind_config cfg = cubind_config_1d(BLOCKS * 64, 64);
  cubind_status status;
  size_t bad = 0;
  int c;

  gpu_require_gpu("gpu_cluster");
  for (c = 2; c <= 4; c += 2) {
    cfg.cluster.x = (unsigned)c;
    gpu_poison(ranks, sizeof ranks);
    gpu_poison(peer, sizeof peer);
    status = cluster_ranks_call(&cfg, ranks, peer, BLOCKS);
    skip_without_sm90(status);
    GPU_CHECK(status);
    bad += check(c == 2 ? "cluster_ranks, cluster 2" : "cluster_ranks, cluster 4", ranks, peer, c);
  }

  cfg.cluster.x = 0; /* the kernel's own __cluster_dims__(2, 1, 1) */
  gpu_poison(ranks, sizeof ranks);
  gpu_poison(peer, sizeof peer);
  GPU_CHECK(fixed_cluster_ranks_call(&cfg, ranks, peer, BLOCKS));
  bad += check("fixed_cluster_ranks", ranks, peer, 2);

  cfg.cluster.x = 4; /* contradicts __cluster_dims__(2, 1, 1) */
  status = fixed_cluster_ranks_call(&cfg, ranks, peer, BLOCKS);
  if (status != CUBIND_ERROR_INVALID_CONFIG || !strstr(cubind_last_error(), "__cluster_dims__")) {
    fprintf(stderr, "cluster 4 on __cluster_dims__(2,1,1): got %s: %s\n",
            cubind_status_name(status), cubind_last_error());
    bad++;
  } else {
    printf("gpu_cluster: refused as expected: %s\n", cubind_last_error());
  }

  cfg.cluster.x = 2;
  cfg.grid.x = BLOCKS - 1; /* 15 blocks in clusters of 2 */
  status = cluster_ranks_call(&cfg, ranks, peer, BLOCKS - 1);
  if (status != CUBIND_ERROR_INVALID_CONFIG || !strstr(cubind_last_error(), "not a multiple")) {
    fprintf(stderr, "grid 15, cluster 2: got %s: %s\n", cubind_status_name(status),
            cubind_last_error());
    bad++;
  } else {
    printf("gpu_cluster: refused as expected: %s\n", cubind_last_error());
  }
  return gpu_finish("gpu_cluster", bad);
}
