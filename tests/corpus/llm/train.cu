// The main program of a plain-CUDA training codebase: kernels live in kernels/*.cuh, the .cu
// holds host code (OpenMP for the data loader) and one kernel of its own. cubind must bind the
// headers' kernels too (every one nvcc emits here) and parse <omp.h> as nvcc does.
#include <omp.h>

#include "kernels/adamw.cuh"
#include "kernels/layernorm.cuh"

/** Cross-entropy forward: losses[i] = -log(probs[i, targets[i]]). */
__global__ void crossentropy_forward_kernel(float *losses, const float *probs, const int *targets,
                                            int B, int T, int V) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < B * T)
    losses[i] = -logf(probs[(size_t)i * V + targets[i]]);
}

static void shuffle_tokens(int *tokens, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    tokens[i] = (tokens[i] * 1103515245 + 12345) & 0x7fffffff;
}

void train_step(floatX *params, float *master, floatX *grads, float *m, float *v, size_t n,
                floatX *acts, float *mean, float *rstd, const floatX *w, const floatX *b,
                int *tokens, cudaStream_t stream) {
  shuffle_tokens(tokens, 1024);
  layernorm_forward(acts, mean, rstd, acts, w, b, 4, 64, 768, stream);
  residual_forward(acts, acts, acts, 4 * 64 * 768, stream);
  adamw_update(params, master, grads, m, v, n, 3e-4f, 0.9f, 0.95f, 1, 1e-8f, 0.1f, 1.0f, 42u,
               stream);
}
