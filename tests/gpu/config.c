/*
 * config: launch configurations the device cannot run are refused before anything runs, as
 * CUBIND_ERROR_INVALID_CONFIG, with a message naming the kernel and the offending dimension.
 */
#include "gpu_check.h"

#include "kernels.cubind.h"

/* Launches fill with cfg; 1 if the status or the message is not as expected. */
static int expect_invalid(const char *what, const cubind_config *cfg, const char *needle) {
  int out[4];
  cubind_status status = fill_call(cfg, out, 7, 4);
  const char *message = cubind_last_error();
  printf("gpu_config: %s: %s: %s\n", what, cubind_status_name(status), message);
  if (status != CUBIND_ERROR_INVALID_CONFIG) {
    fprintf(stderr, "gpu_config: %s: expected CUBIND_ERROR_INVALID_CONFIG\n", what);
    return 1;
  }
  if (!strstr(message, "fill") || !strstr(message, needle)) {
    fprintf(stderr, "gpu_config: %s: the message should name the kernel fill and '%s'\n", what,
                needle);
    return 1;
  }
  return 0;
}

int main(void) {
  cubind_config too_big = {{1, 1, 1}, {2048, 1, 1}, 0, 0, {0, 0, 0}, 0};
  cubind_config empty_block = cubind_config_1d(4, 0);
  cubind_config too_much_shared = {{1, 1, 1}, {4, 1, 1}, 64u << 20, 0, {0, 0, 0}, 0};
  cubind_config fine = cubind_config_1d(4, 32);
  int out[4], failures = 0, i;

  gpu_require_gpu("gpu_config");
  failures += expect_invalid("block 2048x1x1", &too_big, "2048");
  failures += expect_invalid("block of 0 threads", &empty_block, "0");
  failures += expect_invalid("64 MiB of shared memory", &too_much_shared, "shared");

  /* A valid launch still works afterwards. */
  gpu_poison(out, sizeof out);
  GPU_CHECK(fill_call(&fine, out, 7, 4));
  for (i = 0; i < 4; i++) failures += out[i] != 7;
  return gpu_finish("gpu_config", (size_t)failures);
}
