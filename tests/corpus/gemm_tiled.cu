// Shared-memory tiling GEMM (the CUDA programming guide's and siboehm's SGEMM styles), a
// transpose with padded tiles, and a plain C-linkage SAXPY.
#include <cubind/annotations.h>

#define TILE 32

/** C = alpha * A * B + beta * C, row-major, square tiles of TILE in shared memory. */
extern "C" __global__ void sgemm_shared(int M, int N, int K, float alpha,
                                        const float *__restrict__ A, const float *__restrict__ B,
                                        float beta, float *__restrict__ C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE + 1];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[threadIdx.y][threadIdx.x] = row < M && k0 + threadIdx.x < K ? A[row * K + k0 + threadIdx.x] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = col < N && k0 + threadIdx.y < K ? B[(k0 + threadIdx.y) * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

/** Register-blocked SGEMM: each thread computes TM x TN outputs. */
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM * BN) / (TM * TN))
    sgemm_2d_blocktiling(int M, int N, int K, float alpha, const float *A, const float *B,
                         float beta, float *C) {
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  const int threadRow = threadIdx.x / (BN / TN), threadCol = threadIdx.x % (BN / TN);
  A += blockIdx.y * BM * K;
  B += blockIdx.x * BN;
  C += blockIdx.y * BM * N + blockIdx.x * BN;
  float results[TM * TN] = {0.f}, regM[TM], regN[TN];
  for (int bk = 0; bk < K; bk += BK) {
    for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) As[i] = A[(i / BK) * K + i % BK];
    for (int i = threadIdx.x; i < BK * BN; i += blockDim.x) Bs[i] = B[(i / BN) * N + i % BN];
    __syncthreads();
    A += BK;
    B += BK * N;
    for (int k = 0; k < BK; k++) {
      for (int i = 0; i < TM; i++) regM[i] = As[(threadRow * TM + i) * BK + k];
      for (int i = 0; i < TN; i++) regN[i] = Bs[k * BN + threadCol * TN + i];
      for (int m = 0; m < TM; m++)
        for (int n = 0; n < TN; n++) results[m * TN + n] += regM[m] * regN[n];
    }
    __syncthreads();
  }
  for (int m = 0; m < TM; m++)
    for (int n = 0; n < TN; n++) {
      float *c = &C[(threadRow * TM + m) * N + threadCol * TN + n];
      *c = alpha * results[m * TN + n] + beta * *c;
    }
}
template __global__ void sgemm_2d_blocktiling<128, 128, 8, 8, 8>(int, int, int, float,
                                                                 const float *, const float *,
                                                                 float, float *);
template __global__ void sgemm_2d_blocktiling<64, 64, 8, 4, 4>(int, int, int, float,
                                                               const float *, const float *,
                                                               float, float *);

/** Matrix transpose through a padded shared tile (no bank conflicts). */
extern "C" __global__ void transpose_padded(CUBIND_OUT_N(rows * cols) float *out,
                                            CUBIND_IN_N(rows * cols) const float *in, int rows,
                                            int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

/** y = a * x + y. */
extern "C" __global__ void saxpy(int n, float a, CUBIND_IN_N(n) const float *x,
                                 CUBIND_INOUT_N(n) float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
