// Random walks, one generator state per thread.
#include <curand_kernel.h>
#include <stdio.h>

__global__ void walk(unsigned long long seed, float *ends, int steps) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandState state;
  curand_init(seed, id, 0, &state);
  float x = 0.0f;
  for (int s = 0; s < steps; s++)
    x += curand_normal(&state);
  ends[id] = x;
}
