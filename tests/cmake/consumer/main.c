/* Doubles 16 floats; exits 0 when right, 77 without a GPU, 1 otherwise. */
#include <stdio.h>

#include "vec.cubind.h"

int main(void) {
  float a[16];
  int i;
  cubind_config cfg = cubind_config_1d(16, 256);
  cubind_status status = cubind_init();
  if (status == CUBIND_ERROR_NO_DRIVER || status == CUBIND_ERROR_NO_DEVICE) {
    printf("consumer: skipped: no GPU: %s\n", cubind_last_error());
    return 77;
  }
  for (i = 0; i < 16; i++) a[i] = (float)i;
  if (doublify_call(&cfg, a, 16) != CUBIND_SUCCESS) {
    fprintf(stderr, "consumer: %s\n", cubind_last_error());
    return 1;
  }
  for (i = 0; i < 16; i++)
    if (a[i] != 2.0f * (float)i) return 1;
  printf("consumer: OK\n");
  return 0;
}
