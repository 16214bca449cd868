// Thrust for the host side, a hand-written kernel beside it.
#include <thrust/device_vector.h>
#include <thrust/transform.h>
#include <thrust/reduce.h>

struct square {
  __host__ __device__ float operator()(float x) const { return x * x; }
};

__global__ void shift(float *x, float by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += by;
}

float sum_of_squares(const thrust::device_vector<float> &v) {
  thrust::device_vector<float> squares(v.size());
  thrust::transform(v.begin(), v.end(), squares.begin(), square());
  return thrust::reduce(squares.begin(), squares.end());
}
