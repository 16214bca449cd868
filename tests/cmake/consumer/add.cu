// A kernel of <cubind/elementwise.cuh>, from the installed headers.
#include <cubind/elementwise.cuh>

CUBIND_VECTORIZE(add, float, (float a, float b), { return a + b; })
