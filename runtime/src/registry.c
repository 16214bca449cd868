/*
 * registry.c: the process-wide list of the program's modules (each generated .c registers its
 * own from a constructor) and cubind_preload, which loads their images on the calling thread's
 * device. The list is a lock-free push list linked through each module's state.
 */
#include <stdio.h>

#include "context.h"
#include "error.h"
#include "image.h"
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

/*
 * Loads `module`'s image on `device` (once per image) and keeps it loaded. Its kernels are
 * resolved, and checked against the stubs' layout, each at its first launch: resolving them
 * here would make the driver load every kernel of the module, where the driver's own lazy
 * loading loads only those that run (kernel.c).
 */
static cubind_status load_image(const char *what, const cubind_module *module, CUcontext ctx,
                                int device) {
  cubind__module_slots *slots;
  cubind__image_slot *slot;
  cubind_status status = cubind__slots_get(what, module, &slots);
  if (status == CUBIND_SUCCESS)
    status = cubind__image_enter(what, module, slots->image, ctx, device, &slot);
  if (status != CUBIND_SUCCESS) return status;
  cubind__image_commit(slot);
  cubind__image_leave(slots->image, slot);
  return CUBIND_SUCCESS;
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
    status = load_image(what, module, ctx, device);
    if (status != CUBIND_SUCCESS) return status;
  }
  return CUBIND_SUCCESS;
}
