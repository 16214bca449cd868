// numba's vectorAdd for bench/vector_add_host.c: a scalar function applied elementwise
// (<cubind/elementwise.cuh>), whose _call runs in chunks over host arrays; and the seeds' sum of
// squares, PyCUDA's ReductionKernel(map_expr="x[i]*x[i]").
#include <cubind/elementwise.cuh>

/** a + b, elementwise. */
CUBIND_VECTORIZE(vector_add, float, (float a, float b), { return a + b; })

/** The sum of x[i] * x[i] (the seeds' sum of squares). */
CUBIND_REDUCTION(sum_squares, float, 0.0f, a + b, x[i] * x[i], (CUBIND_IN const float *x))
