// The kernels of <cubind/elementwise.cuh> under test (tests/gpu/elementwise.c): CONTRACT
// section 6's lin_comb, vector_add and dot, and byte kernels for counts above 2^32.
#include <cubind/elementwise.cuh>

/** z = a x + b y, elementwise (PyCUDA's ElementwiseKernel). */
CUBIND_ELEMENTWISE(lin_comb, (float a, CUBIND_IN const float *x, float b, CUBIND_IN const float *y,
                              CUBIND_OUT float *z),
                   { z[i] = a * x[i] + b * y[i]; })
/** numba's @vectorize(["float32(float32, float32)"]). */
CUBIND_VECTORIZE(vector_add, float, (float a, float b), { return a + b; })
/** PyCUDA's ReductionKernel: the dot product. */
CUBIND_REDUCTION(dot, float, 0.0f, a + b, x[i] * y[i],
                 (CUBIND_IN const float *x, CUBIND_IN const float *y))
/** x[i] = v + (i >> 32): bytes whose value shows whether indices past 2^32 were reached. */
CUBIND_ELEMENTWISE(mark_u8, (CUBIND_OUT unsigned char *x, unsigned char v),
                   { x[i] = (unsigned char)(v + (i >> 32)); })
/** The sum of bytes. */
CUBIND_REDUCTION(sum_u8, unsigned long long, 0ull, a + b, x[i], (CUBIND_IN const unsigned char *x))
