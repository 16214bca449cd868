// PyCUDA's ElementwiseKernel walk-through:
//   ElementwiseKernel("float *a, float *b", "a[i] = (a[i]*10+2) * ((b[i]+2)*10-5) * 5")
// cubind-gen binds it as elementwise_launch(cfg, a, b, n): the element count comes last.
#include <cubind/elementwise.cuh>

/** a = (a*10+2) * ((b+2)*10-5) * 5, elementwise, in place. */
CUBIND_ELEMENTWISE(elementwise, (CUBIND_INOUT float *a, CUBIND_IN const float *b),
                   { a[i] = (a[i] * 10 + 2) * ((b[i] + 2) * 10 - 5) * 5; })
