/*
 * staging.c: the staging policy of `<kernel>_call` for pageable host buffers.
 *
 * The driver copies pageable memory through its own small staging buffers at a fraction of the
 * link's rate (8-10 GB/s on an H100 against ~53 GB/s page-locked). For a pageable buffer of at
 * least `min_bytes` bytes, _call page-locks the user's buffer in place for the call
 * (cuMemHostRegister), copies it directly, and unregisters it (cuMemHostUnregister) after the
 * final synchronisation, on every path; a buffer that cannot be registered is copied plainly.
 * Measured on an H100 (bench/run_all.sh, 2026-11-22): 16-19.5 GB/s round trips against the
 * driver's 8-10 GB/s from 16 MiB up (1.9-2.2x), neutral at 4 MiB and below; a ring of page-locked
 * chunks fed by memcpy lost to the driver (0.76-0.94x: one thread's memcpy caps it at ~8 GB/s).
 * Page-locked buffers (cuMemAllocHost / cuMemHostRegister memory, seen by cuPointerGetAttributes,
 * which reports no error for ordinary memory) and small ones take the driver's plain path.
 * CUBIND_PAGEABLE_STAGING=0 turns this off; CUBIND_STAGING_MIN (a size: 8M, 1G, 65536) sets the
 * threshold (default 8 MiB). A value that cannot be read fails every _call (cubind__staging_check)
 * instead of being misread.
 */
#include <pthread.h>
#include <stdio.h>

#include "driver.h"
#include "env.h"
#include "error.h"
#include "staging.h"

static pthread_once_t policy_once = PTHREAD_ONCE_INIT;
static int staging_on = 1;
static size_t staging_min = (size_t)8 << 20;
static int policy_bad;                            /* the environment held a value we reject */
static char policy_message[CUBIND_MESSAGE_SIZE]; /* ... and what is wrong with it */

static void read_policy(void) {
  char on_message[CUBIND_MESSAGE_SIZE / 2 - 8], min_message[CUBIND_MESSAGE_SIZE / 2 - 8];
  int bad_on = cubind__env_switch("CUBIND_PAGEABLE_STAGING", 1, &staging_on, on_message,
                                  sizeof on_message) != 0;
  int bad_min = cubind__env_size("CUBIND_STAGING_MIN", staging_min, &staging_min, min_message,
                                 sizeof min_message) != 0;
  policy_bad = bad_on || bad_min;
  snprintf(policy_message, sizeof policy_message, "%s%s%s", bad_on ? on_message : "",
           bad_on && bad_min ? "; " : "", bad_min ? min_message : "");
}

cubind_status cubind__staging_check(const char *what) {
  pthread_once(&policy_once, read_policy);
  if (CUBIND_LIKELY(!policy_bad)) return CUBIND_SUCCESS;
  return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "%s: %s", what, policy_message);
}

void cubind__set_staging(int on, size_t min_bytes) {
  pthread_once(&policy_once, read_policy);
  staging_on = on;
  staging_min = min_bytes;
  policy_bad = 0;
}

int cubind__staging_register(void *host, size_t bytes) {
  CUpointer_attribute attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
  unsigned type = 0; /* CUmemorytype; 0 for memory the driver does not know (pageable) */
  void *data = &type;
  pthread_once(&policy_once, read_policy);
  if (!staging_on || policy_bad || bytes < staging_min || !cubind__drv.cuPointerGetAttributes ||
      !cubind__drv.cuMemHostRegister || !cubind__drv.cuMemHostUnregister)
    return 0;
  if (cubind__drv.cuPointerGetAttributes(1, &attribute, &data, (CUdeviceptr)(uintptr_t)host) !=
      CUDA_SUCCESS)
    return 0; /* unknown: let the driver decide */
  if (type != 0) return 0; /* page-locked already */
  return cubind__drv.cuMemHostRegister(host, bytes, 0) == CUDA_SUCCESS; /* else: plainly */
}

CUresult cubind__staging_unregister(void *host) { return cubind__drv.cuMemHostUnregister(host); }
