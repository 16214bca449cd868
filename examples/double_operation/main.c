/*
 * Example 7, PyCUDA's tutorial "Advanced Topics: Structures": two arrays of different lengths,
 * each described by a {datalen, padding, ptr} struct; the structs are built on the host, copied
 * to a device array, and one block per struct doubles its array. Then only the second array is
 * doubled, by passing the address of the second struct and a grid of one block.
 */
#include "example_check.h"

#include "double_operation.cubind.h"

/* The host's copy of the .cu's struct DoubleOperation: int, int, then a device pointer. */
typedef struct double_operation {
  int datalen, padding; /* so 64-bit pointers can be aligned */
  float *ptr;           /* device memory */
} double_operation;

enum { LEN1 = 3, LEN2 = 4 };

int main(void) {
  float array1[LEN1], array2[LEN2], got1[LEN1], got2[LEN2], want1[LEN1], want2[LEN2];
  void *array1_gpu = NULL, *array2_gpu = NULL, *structs_gpu = NULL;
  double_operation structs[2];
  cubind_config both = {{2, 1, 1}, {32, 1, 1}, 0, 0, {0, 0, 0}, 0};   /* one block per struct */
  cubind_config second = {{1, 1, 1}, {32, 1, 1}, 0, 0, {0, 0, 0}, 0}; /* one block, for the second struct */
  size_t bad = 0;
  int i;

  example_require_gpu("double_operation");
  example_seed("double_operation");
  if (sizeof(double_operation) != 16) { /* the device's layout, on a 64-bit host */
    fprintf(stderr, "double_operation: host struct is %zu bytes, the kernel's 16\n",
            sizeof(double_operation));
    return 1;
  }
  example_fill_random(array1, LEN1, -10.0f, 10.0f);
  example_fill_random(array2, LEN2, -10.0f, 10.0f);

  EXAMPLE_CHECK(cubind_malloc(&array1_gpu, sizeof array1));
  EXAMPLE_CHECK(cubind_malloc(&array2_gpu, sizeof array2));
  EXAMPLE_CHECK(cubind_to_device(array1_gpu, array1, sizeof array1));
  EXAMPLE_CHECK(cubind_to_device(array2_gpu, array2, sizeof array2));
  structs[0].datalen = LEN1;
  structs[0].padding = 0;
  structs[0].ptr = (float *)array1_gpu;
  structs[1].datalen = LEN2;
  structs[1].padding = 0;
  structs[1].ptr = (float *)array2_gpu;
  EXAMPLE_CHECK(cubind_malloc(&structs_gpu, sizeof structs));
  EXAMPLE_CHECK(cubind_to_device(structs_gpu, structs, sizeof structs));

  /* Both arrays: x2. */
  EXAMPLE_CHECK(double_array_launch(&both, structs_gpu));
  example_poison(got1, sizeof got1);
  example_poison(got2, sizeof got2);
  EXAMPLE_CHECK(cubind_from_device(got1, array1_gpu, sizeof got1));
  EXAMPLE_CHECK(cubind_from_device(got2, array2_gpu, sizeof got2));
  for (i = 0; i < LEN1; i++) want1[i] = 2 * array1[i];
  for (i = 0; i < LEN2; i++) want2[i] = 2 * array2[i];
  bad += example_compare_floats("array1 after both", got1, want1, LEN1, 0);
  bad += example_compare_floats("array2 after both", got2, want2, LEN2, 0);

  /* Only the second: array1 stays x2, array2 becomes x4. */
  EXAMPLE_CHECK(double_array_launch(&second, (char *)structs_gpu + sizeof(double_operation)));
  example_poison(got1, sizeof got1);
  example_poison(got2, sizeof got2);
  EXAMPLE_CHECK(cubind_from_device(got1, array1_gpu, sizeof got1));
  EXAMPLE_CHECK(cubind_from_device(got2, array2_gpu, sizeof got2));
  for (i = 0; i < LEN2; i++) want2[i] = 4 * array2[i];
  bad += example_compare_floats("array1 after second", got1, want1, LEN1, 0);
  bad += example_compare_floats("array2 after second", got2, want2, LEN2, 0);

  for (i = 0; i < LEN1; i++) printf("array1[%d]: %g -> %g\n", i, (double)array1[i], (double)got1[i]);
  for (i = 0; i < LEN2; i++) printf("array2[%d]: %g -> %g\n", i, (double)array2[i], (double)got2[i]);

  EXAMPLE_CHECK(cubind_free(structs_gpu));
  EXAMPLE_CHECK(cubind_free(array1_gpu));
  EXAMPLE_CHECK(cubind_free(array2_gpu));
  return example_finish("double_operation", bad);
}
