/*
 * scratch.h (scratch.c): each thread's reusable device memory for `<kernel>_call`, one arena per
 * device, grown geometrically, freed with the thread or by cubind_release_scratch().
 */
#ifndef CUBIND_SCRATCH_H
#define CUBIND_SCRATCH_H

#include "internal.h"

/* What cuMemAlloc guarantees (kernels may rely on it): each buffer in the arena starts so. */
#define CUBIND_SCRATCH_ALIGNMENT 256

/*
 * cubind__scratch: the calling thread's scratch on `device` (allocated in `ctx`, current), at
 * least `bytes` large, into *base. Idle on return: every _call synchronises before returning.
 * Allocates only when the arena is too small or belongs to another context.
 */
CUBIND_INTERNAL cubind_status cubind__scratch(const char *what, int device, CUcontext ctx,
                                              size_t bytes, CUdeviceptr *base);

#endif /* CUBIND_SCRATCH_H */
