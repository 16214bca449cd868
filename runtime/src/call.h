/*
 * call.h (call.c): the host-buffer launch behind cubind_module_call and
 * cubind_module_call_elementwise.
 */
#ifndef CUBIND_CALL_H
#define CUBIND_CALL_H

#include "internal.h"

/*
 * cubind__call: cubind_module_call (generated.h) with the launch of `shape`'s kernel
 * (cubind__launch_shaped) when shape is not NULL; `cfg` is never NULL here.
 */
CUBIND_INTERNAL cubind_status cubind__call(const cubind_module *module, unsigned kernel_index,
                                           const cubind_config *cfg, void **args,
                                           const cubind_host_arg *host_args,
                                           unsigned num_host_args,
                                           const cubind_elementwise_shape *shape);

/*
 * cubind__check_host_args: the checks cubind__call makes of its host arguments before anything
 * runs (a NULL list with entries, a parameter out of range, CUBIND_COUNT_INVALID, sizes that
 * overflow, a NULL buffer holding elements), also for an elementwise call of n == 0 that
 * launches nothing. `what` names the call in messages. *arena_bytes: the device arena the
 * buffers take, each aligned to CUBIND_SCRATCH_ALIGNMENT.
 */
CUBIND_INTERNAL cubind_status cubind__check_host_args(const char *what,
                                                      const cubind_module *module,
                                                      unsigned kernel_index,
                                                      const cubind_host_arg *host_args,
                                                      unsigned num_host_args,
                                                      size_t *arena_bytes);

#endif /* CUBIND_CALL_H */
