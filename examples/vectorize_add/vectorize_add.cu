// numba's @vectorize example:
//   @vectorize(["float32(float32, float32)"], target='cuda')
//   def vectorAdd(a, b):
//       return a + b
#include <cubind/elementwise.cuh>

/** a + b, elementwise: numba's vectorAdd. */
CUBIND_VECTORIZE(vector_add, float, (float a, float b), { return a + b; })
