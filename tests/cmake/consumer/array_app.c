/*
 * cubind::array and a CUBIND_VECTORIZE kernel from the installed package (issue 15): 2 * a + b
 * over 1000 floats; exits 0 when right, 77 without a GPU, 1 otherwise.
 */
#include <stdio.h>

#include <cubind/array.h>

#include "add.cubind.h"

enum { N = 1000 };

int main(void) {
  float a[N], b[N], c[N];
  cubind_array x, y = {0};
  int i;
  cubind_status status = cubind_init();
  if (status == CUBIND_ERROR_NO_DRIVER || status == CUBIND_ERROR_NO_DEVICE) {
    printf("array_app: skipped: no GPU: %s\n", cubind_last_error());
    return 77;
  }
  for (i = 0; i < N; i++) a[i] = (float)i, b[i] = 1.0f;
  if (cubind_array_to_gpu(&x, a, N, CUBIND_F32) != CUBIND_SUCCESS ||
      cubind_array_scale(&y, 2, &x) != CUBIND_SUCCESS || cubind_array_get(&y, a) != CUBIND_SUCCESS ||
      add_call(NULL, a, b, c, N) != CUBIND_SUCCESS) {
    fprintf(stderr, "array_app: %s\n", cubind_last_error());
    return 1;
  }
  cubind_array_free(&x);
  cubind_array_free(&y);
  for (i = 0; i < N; i++)
    if (c[i] != 2.0f * (float)i + 1.0f) return 1;
  printf("array_app: OK\n");
  return 0;
}
