/*
 * fault: a kernel that writes to an illegal address. The failure must come back as
 * CUBIND_ERROR_KERNEL_FAULT (from the launch or, as the fault is asynchronous, from the next
 * synchronisation), with the kernel's name in cubind_last_error(), and nothing may abort.
 */
#include "gpu_check.h"

#include "kernels.cubind.h"

int main(void) {
  cubind_config cfg = {{1, 1, 1}, {1, 1, 1}, 0, 0, {0, 0, 0}, 0};
  cubind_status status;
  const char *message;

  gpu_require_gpu("gpu_fault");
  status = write_to_bad_address_launch(&cfg, (float *)(uintptr_t)0x10);
  if (status == CUBIND_SUCCESS) status = cubind_synchronize();
  message = cubind_last_error();
  printf("gpu_fault: %s: %s\n", cubind_status_name(status), message);
  if (status != CUBIND_ERROR_KERNEL_FAULT) {
    fprintf(stderr, "gpu_fault: expected CUBIND_ERROR_KERNEL_FAULT\n");
    return 1;
  }
  if (!strstr(message, "write_to_bad_address")) {
    fprintf(stderr, "gpu_fault: the message does not name the kernel write_to_bad_address\n");
    return 1;
  }
  /* The context is unusable from here on; later calls must fail, not crash. */
  status = cubind_synchronize();
  printf("gpu_fault: after the fault, cubind_synchronize: %s: %s\n", cubind_status_name(status),
         cubind_last_error());
  return gpu_finish("gpu_fault", status == CUBIND_SUCCESS);
}
