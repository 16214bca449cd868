/*
 * noarch: a module holding sm_75 machine code only must fail to load on any other GPU with
 * CUBIND_ERROR_NO_KERNEL_IMAGE and a message naming the architecture the fatbin holds; the same
 * kernel built with PTX (ARCHS 75 PTX) must run anywhere, JIT-compiled.
 */
#include "gpu_check.h"

#include "noarch.cubind.h"
#include "ptx.cubind.h"

enum { N = 100 };

int main(void) {
  cubind_config cfg = cubind_config_1d(N, 64);
  int out[N], i;
  size_t bad = 0;
  cubind_status status;

  gpu_require_gpu("gpu_noarch");
  status = sass_only_call(&cfg, out, N);
  printf("gpu_noarch: sm_75-only module: %s: %s\n", cubind_status_name(status),
         cubind_last_error());
  if (status == CUBIND_SUCCESS) {
    printf("gpu_noarch: skipped: this GPU is sm_75, so the module is not foreign to it\n");
    return GPU_SKIP;
  }
  if (status != CUBIND_ERROR_NO_KERNEL_IMAGE) {
    fprintf(stderr, "gpu_noarch: expected CUBIND_ERROR_NO_KERNEL_IMAGE\n");
    bad++;
  } else if (!strstr(cubind_last_error(), "sm_75")) {
    fprintf(stderr, "gpu_noarch: the message does not say the fatbin holds sm_75\n");
    bad++;
  }

  gpu_poison(out, sizeof out);
  GPU_CHECK(from_ptx_call(&cfg, out, N));
  for (i = 0; i < N; i++) bad += out[i] != 3 * i;
  return gpu_finish("gpu_noarch", bad);
}
