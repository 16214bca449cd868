// PyCUDA's front-page example: dest = a * b, elementwise, one thread per element.
#include <cubind/annotations.h>

extern "C" __global__ void multiply_them(CUBIND_OUT float *dest, CUBIND_IN float *a,
                                         CUBIND_IN float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}

// The same over a width x height row-major matrix, with a 2-D grid of 2-D blocks; threads
// outside the matrix do nothing.
extern "C" __global__ void multiply_them_2d(CUBIND_OUT_N(width * height) float *dest,
                                            CUBIND_IN_N(width * height) const float *a,
                                            CUBIND_IN_N(width * height) const float *b,
                                            int width, int height)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) dest[y * width + x] = a[y * width + x] * b[y * width + x];
}
