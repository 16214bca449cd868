// PyCUDA's ReductionKernel example:
//   dot = ReductionKernel(numpy.float32, neutral="0", reduce_expr="a+b",
//                         map_expr="x[i]*y[i]", arguments="float *x, float *y")
#include <cubind/elementwise.cuh>

/** The dot product of x and y. */
CUBIND_REDUCTION(dot, float, 0.0f, a + b, x[i] * y[i],
                 (CUBIND_IN const float *x, CUBIND_IN const float *y))
