/*
 * registry.c: the process-wide list of the program's modules (each generated .c registers its
 * own from a constructor) and cubind_preload, which loads them all on the calling thread's
 * device. The list is a lock-free push list linked through each module's state.
 */
#include <stdio.h>

#include "context.h"
#include "error.h"
#include "kernel.h"
#include "slots.h"

static const cubind_module *registry;
/* The first module registered with another ABI (its layout is not ours: it is not linked in). */
static const cubind_module *foreign;

void cubind_module_register(const cubind_module *module) {
  const cubind_module *head, *m, *expected = NULL;
  if (!module) return;
  if (!cubind__module_usable(module)) { /* reported by cubind_preload */
    (void)__atomic_compare_exchange_n(&foreign, &expected, module, 0, __ATOMIC_RELEASE,
                                      __ATOMIC_RELAXED);
    return;
  }
  head = __atomic_load_n(&registry, __ATOMIC_ACQUIRE);
  do {
    /* Registering twice would make a cycle; entries are never removed, so the walk is safe. */
    for (m = head; m; m = m->state->next)
      if (m == module) return;
    module->state->next = head;
  } while (!__atomic_compare_exchange_n(&registry, &head, module, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_ACQUIRE));
}

cubind_status cubind_preload(void) {
  const cubind_module *module = __atomic_load_n(&foreign, __ATOMIC_ACQUIRE);
  cubind_status status;
  CUcontext ctx;
  int device;
  char what[256];

  if (module) return cubind__module_check("cubind_preload", module);
  status = cubind__enter("cubind_preload", &ctx, &device);
  if (status != CUBIND_SUCCESS) return status;
  for (module = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); module; module = module->state->next) {
    snprintf(what, sizeof what, "cubind_preload (module %s)", module->name);
    status = cubind__kernel_resolve_all(what, module, ctx, device);
    if (status != CUBIND_SUCCESS) return status;
  }
  return CUBIND_SUCCESS;
}
