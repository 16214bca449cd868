// The kernels live in a local header; this file instantiates them.
#include "corpus_kern.cuh"

__global__ void clear(unsigned *bins) { bins[threadIdx.x] = 0; }

template __global__ void histogram_block<256>(const unsigned char *, unsigned *);
