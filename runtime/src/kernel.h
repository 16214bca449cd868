/*
 * kernel.h (kernel.c): resolving a module's kernels on a device: the function handle from the
 * module's loaded image, the ABI check of the generated parameter layout against the compiled
 * kernel, and the kernel's launch limits, published into its slot for the launch path.
 */
#ifndef CUBIND_KERNEL_H
#define CUBIND_KERNEL_H

#include "internal.h"
#include "slots.h"

/*
 * cubind__kernel_resolve: kernel `index` of `module` on `device` (ctx current there; the
 * driver ready) into *out, resolved now if it is not yet, after loading the module's image
 * there if needed. The first-use path: takes the image's lock. A first load whose kernel cannot
 * be resolved is undone (nothing stays loaded); a later kernel's failure leaves the image
 * loaded for the others and is reported again at the next attempt.
 */
CUBIND_INTERNAL cubind_status cubind__kernel_resolve(const char *what, const cubind_module *module,
                                                     CUcontext ctx, int device, unsigned index,
                                                     const cubind__kernel_slot **out);

#endif /* CUBIND_KERNEL_H */
