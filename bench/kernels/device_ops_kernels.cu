// The kernels of bench/device_ops.c besides vector_add (vectorize_kernels.cu): PyCUDA's
// ElementwiseKernel lin_comb and a ReductionKernel sum, written with <cubind/elementwise.cuh>.
#include <cubind/elementwise.cuh>

/** z = a x + b y, elementwise (PyCUDA's ElementwiseKernel lin_comb). */
CUBIND_ELEMENTWISE(lin_comb, (float a, CUBIND_IN const float *x, float b, CUBIND_IN const float *y,
                              CUBIND_OUT float *z),
                   { z[i] = a * x[i] + b * y[i]; })

/** The sum of x's elements, accumulated in float (PyCUDA's ReductionKernel, gpuarray.sum). */
CUBIND_REDUCTION(sum_f32, float, 0.0f, a + b, x[i], (CUBIND_IN const float *x))
