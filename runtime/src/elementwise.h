/*
 * elementwise.h (elementwise.c): launches of the kernels of <cubind/elementwise.cuh>: the
 * launch shape picked for the device when cfg is NULL, n == 0, a reduction's per-call scratch.
 */
#ifndef CUBIND_ELEMENTWISE_H
#define CUBIND_ELEMENTWISE_H

#include "internal.h"
#include "slots.h"

/*
 * cubind__launch_shaped: launches `shape`'s kernel, resolved in `k` on `device`, with `cfg`
 * (never NULL here: the shape is already picked); a reduction gets its scratch on cfg->stream
 * and frees it there after the kernel.
 */
CUBIND_INTERNAL cubind_status cubind__launch_shaped(const char *entry,
                                                    const cubind_module *module,
                                                    unsigned kernel_index,
                                                    const cubind_config *cfg, void **args,
                                                    const cubind__kernel_slot *k, int device,
                                                    const cubind_elementwise_shape *shape);

#endif /* CUBIND_ELEMENTWISE_H */
