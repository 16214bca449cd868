// PyCUDA's ElementwiseKernel example:
//   lin_comb = ElementwiseKernel("float a, float *x, float b, float *y, float *z",
//                                "z[i] = a*x[i] + b*y[i]", "linear_combination")
#include <cubind/elementwise.cuh>

/** z = a x + b y, elementwise. */
CUBIND_ELEMENTWISE(lin_comb, (float a, CUBIND_IN const float *x, float b, CUBIND_IN const float *y,
                              CUBIND_OUT float *z),
                   { z[i] = a * x[i] + b * y[i]; })
