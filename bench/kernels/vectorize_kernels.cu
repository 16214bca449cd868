// numba's vectorAdd for bench/vector_add_host.c: a scalar function applied elementwise
// (<cubind/elementwise.cuh>), whose _call runs in chunks over host arrays.
#include <cubind/elementwise.cuh>

/** a + b, elementwise. */
CUBIND_VECTORIZE(vector_add, float, (float a, float b), { return a + b; })
