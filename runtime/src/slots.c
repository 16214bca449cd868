/*
 * slots.c: a module's runtime state, allocated at its first use: the state header, then one
 * 64-byte kernel slot per kernel and device, then one variable slot per variable and device.
 * Published with a compare-and-swap into cubind_module_state.runtime; never freed.
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "error.h"
#include "slots.h"

/* The state header is one cache line, so the kernel slots after it start on their own. */
typedef char cubind__slots_header_is_one_line[sizeof(cubind__module_slots) == 64 ? 1 : -1];

cubind_status cubind__module_check(const char *what, const cubind_module *module) {
  if (module->abi_version != CUBIND_ABI_VERSION)
    return cubind__fail(CUBIND_ERROR_VERSION_MISMATCH,
                        "%s: module %s was generated for cubind ABI %u but this runtime has ABI "
                        "%d; regenerate it with this cubind's cubind-gen",
                        what, module->name, module->abi_version, CUBIND_ABI_VERSION);
  if (!module->state)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                        "%s: module %s has no state (cubind_module.state is NULL)", what,
                        module->name);
  return CUBIND_SUCCESS;
}

cubind_status cubind__slots_get(const char *what, const cubind_module *module,
                                cubind__module_slots **out) {
  cubind__module_slots *slots;
  void *expected = NULL, *memory = NULL;
  cubind__image *image;
  int n = cubind__device_count();
  size_t bytes;
  cubind_status status = cubind__module_check(what, module);

  if (status != CUBIND_SUCCESS) return status;
  slots = cubind__slots_peek(module);
  if (slots) {
    *out = slots;
    return CUBIND_SUCCESS;
  }
  status = cubind__image_of(what, module, &image);
  if (status != CUBIND_SUCCESS) return status;
  bytes = sizeof *slots + (size_t)n * module->num_kernels * sizeof(cubind__kernel_slot) +
          (size_t)n * module->num_globals * sizeof(cubind__global_slot);
  if (posix_memalign(&memory, sizeof(cubind__kernel_slot), bytes) != 0)
    return cubind__fail(CUBIND_ERROR_OUT_OF_MEMORY, "%s: out of host memory", what);
  memset(memory, 0, bytes);
  slots = memory;
  slots->num_devices = n;
  slots->image = image;
  slots->globals =
      (cubind__global_slot *)(cubind__kernel_slots(slots) + (size_t)n * module->num_kernels);
  if (!__atomic_compare_exchange_n(&module->state->runtime, &expected, memory, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    free(memory); /* another thread won: use its state */
    slots = expected;
  }
  *out = slots;
  return CUBIND_SUCCESS;
}
