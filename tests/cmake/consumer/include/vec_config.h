/* Found through add_gpu_kernels(INCLUDE_DIRECTORIES include): by nvcc and by cubind-gen. */
#define VEC_FACTOR 2.0f
