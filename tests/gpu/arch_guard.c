/*
 * arch_guard: of implicit.cu's two arch-guarded kernels (sm_80 and sm_90 code in one fatbin),
 * the one the code loaded for this GPU lacks fails with CUBIND_ERROR_KERNEL_NOT_FOUND, a
 * message naming it, and nothing written; the other one runs. The expected CUDA error keeps
 * this program out of the compute-sanitizer runs (scripts/gpu-suite.sh), like gpu_fault.
 */
#include "gpu_check.h"

#include "implicit.cubind.h"

int main(void) {
  cubind_kernel_attributes attributes;
  cubind_config one = cubind_config_1d(1, 1);
  cubind_status status;
  const char *absent_name;
  int arch = -1, sm90;
  size_t bad = 0;

  gpu_require_gpu("gpu_arch_guard");
  GPU_CHECK(increment_attributes(&attributes));
  sm90 = attributes.binary_version >= 90;
  absent_name = sm90 ? "arch_probe_pre_sm90" : "arch_probe_sm90";
  status = sm90 ? arch_probe_pre_sm90_call(&one, &arch) : arch_probe_sm90_call(&one, &arch);
  printf("gpu_arch_guard: sm_%d code; %s: %s: %s\n", attributes.binary_version, absent_name,
         cubind_status_name(status), cubind_last_error());
  if (status != CUBIND_ERROR_KERNEL_NOT_FOUND || arch != -1 ||
      !strstr(cubind_last_error(), absent_name)) {
    fprintf(stderr, "gpu_arch_guard: want CUBIND_ERROR_KERNEL_NOT_FOUND naming %s, nothing "
                    "written\n", absent_name);
    bad++;
  }
  /* the failure leaves the module usable: the present probe still runs */
  GPU_CHECK(sm90 ? arch_probe_sm90_call(&one, &arch) : arch_probe_pre_sm90_call(&one, &arch));
  if (arch != attributes.binary_version * 10) {
    fprintf(stderr, "gpu_arch_guard: present probe wrote %d\n", arch);
    bad++;
  }
  return gpu_finish("gpu_arch_guard", bad);
}
